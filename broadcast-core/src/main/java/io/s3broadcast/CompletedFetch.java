package io.s3broadcast;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of a fetch: where the verified object is, which version of it, and what it took.
 *
 * <p>The file is a snapshot of the object as the fetch's first request (a HEAD) found it: every later read
 * is pinned to that {@link #eTag()} with {@code If-Match}. An overwrite that one of those reads sees fails
 * the fetch with {@link BroadcastException.ObjectChanged}; an overwrite after every byte was requested is
 * not seen, and the file is the version named here.
 *
 * @param path the object on local disk, complete and verified
 * @param bucket the bucket it came from
 * @param key its key
 * @param eTag the ETag of the version fetched
 * @param size its size in bytes
 * @param strategy the strategy used
 * @param duration wall time from the call to the file at its path
 * @param bytesFromS3 bytes this node read from S3, retried reads included
 * @param bytesFromPeers bytes this node received from other nodes
 * @param checksumVerified true when the whole file was checked against S3's own checksum of the object, or
 *     (cluster strategies) against its ETag when that is a digest (every piece is always checked against the
 *     CRC32C computed as it arrived)
 * @param phase1 time this node spent in phase 1 (fetching its share from S3); the whole fetch for the flat tree
 * @param phase2 time from the end of this node's phase 1 to its last piece (zero for the flat tree)
 * @param piecesStolen pieces this node fetched from S3 in works it took from other nodes
 * @param versionId the S3 version id of the version fetched, as the HEAD returned it; empty for an unversioned
 *     bucket or a server that does not tell
 * @param piecesRepaired pieces that arrived from peers wrong (their bytes differed from S3's under a digest a
 *     lying peer vouched for) and were read again from S3; 0 for the flat tree
 * @param bannedPeers node ids of the peers this node banned for a wrong piece or digest, in order
 */
public record CompletedFetch(
        Path path,
        String bucket,
        String key,
        String eTag,
        long size,
        Strategy strategy,
        Duration duration,
        long bytesFromS3,
        long bytesFromPeers,
        boolean checksumVerified,
        Duration phase1,
        Duration phase2,
        int piecesStolen,
        Optional<String> versionId,
        int piecesRepaired,
        List<String> bannedPeers) {

    public CompletedFetch {
        Objects.requireNonNull(versionId, "versionId");
        bannedPeers = List.copyOf(bannedPeers);
    }

    /** A result without repairs or bans. */
    public CompletedFetch(Path path, String bucket, String key, String eTag, long size, Strategy strategy,
            Duration duration, long bytesFromS3, long bytesFromPeers, boolean checksumVerified, Duration phase1,
            Duration phase2, int piecesStolen, Optional<String> versionId) {
        this(path, bucket, key, eTag, size, strategy, duration, bytesFromS3, bytesFromPeers, checksumVerified, phase1,
                phase2, piecesStolen, versionId, 0, List.of());
    }

    /** Average rate over the whole fetch in MB/s (10^6 bytes per second). */
    public double megabytesPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds <= 0 ? 0 : size / 1e6 / seconds;
    }
}
