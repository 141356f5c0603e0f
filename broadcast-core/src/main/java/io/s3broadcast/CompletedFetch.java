package io.s3broadcast;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The result of a fetch: where the verified object is and what it took.
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
 * @param checksumVerified true when the whole file was checked against S3's own checksum of the object
 *     (every piece is always checked against the CRC32C computed as it arrived)
 * @param phase1 time this node spent in phase 1 (fetching its share from S3); the whole fetch for the flat tree
 * @param phase2 time from the end of this node's phase 1 to its last piece (zero for the flat tree)
 * @param piecesStolen pieces this node fetched from S3 in works it took from other nodes
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
        int piecesStolen) {

    /** Average rate over the whole fetch in MB/s (10^6 bytes per second). */
    public double megabytesPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds <= 0 ? 0 : size / 1e6 / seconds;
    }
}
