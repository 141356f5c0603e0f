package io.s3broadcast;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of a fetch: where the verified object is, which version of it, what S3 says about it, and what
 * it took. Immutable; made by the library with {@link #builder()}.
 *
 * <p>The file is a snapshot of the object as the fetch's first request (a HEAD) found it: every later read
 * is pinned to that {@link #eTag()} with {@code If-Match}. An overwrite that one of those reads sees fails
 * the fetch with {@link BroadcastException.ObjectChanged}; an overwrite after every byte was requested is
 * not seen, and the file is the version named here.
 */
public final class CompletedFetch {

    private final Path path;
    private final String bucket;
    private final String key;
    private final String eTag;
    private final long size;
    private final Strategy strategy;
    private final Duration duration;
    private final long bytesFromS3;
    private final long bytesFromPeers;
    private final boolean checksumVerified;
    private final Duration phase1;
    private final Duration phase2;
    private final int piecesStolen;
    private final int hedges;
    private final AfterLastPiece afterLastPiece;
    private final Optional<String> versionId;
    private final Optional<String> checksumAlgorithm;
    private final Optional<String> contentType;
    private final Optional<Instant> lastModified;
    private final Map<String, String> userMetadata;
    private final boolean unchanged;
    private final int piecesRepaired;
    private final List<String> bannedPeers;

    private CompletedFetch(Builder b) {
        this.path = Objects.requireNonNull(b.path, "path");
        this.bucket = Objects.requireNonNull(b.bucket, "bucket");
        this.key = Objects.requireNonNull(b.key, "key");
        this.eTag = Objects.requireNonNull(b.eTag, "eTag");
        this.size = b.size;
        this.strategy = Objects.requireNonNull(b.strategy, "strategy");
        this.duration = Objects.requireNonNull(b.duration, "duration");
        this.bytesFromS3 = b.bytesFromS3;
        this.bytesFromPeers = b.bytesFromPeers;
        this.checksumVerified = b.checksumVerified;
        this.phase1 = b.phase1 != null ? b.phase1 : b.duration;
        this.phase2 = b.phase2 != null ? b.phase2 : Duration.ZERO;
        this.piecesStolen = b.piecesStolen;
        this.hedges = b.hedges;
        this.afterLastPiece = Objects.requireNonNull(b.afterLastPiece, "afterLastPiece");
        this.versionId = Objects.requireNonNull(b.versionId, "versionId");
        this.checksumAlgorithm = Objects.requireNonNull(b.checksumAlgorithm, "checksumAlgorithm");
        this.contentType = Objects.requireNonNull(b.contentType, "contentType");
        this.lastModified = Objects.requireNonNull(b.lastModified, "lastModified");
        this.userMetadata = Map.copyOf(b.userMetadata);
        this.unchanged = b.unchanged;
        this.piecesRepaired = b.piecesRepaired;
        this.bannedPeers = List.copyOf(b.bannedPeers);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().path(path).bucket(bucket).key(key).eTag(eTag).size(size).strategy(strategy)
                .duration(duration).bytesFromS3(bytesFromS3).bytesFromPeers(bytesFromPeers)
                .checksumVerified(checksumVerified).phase1(phase1).phase2(phase2).piecesStolen(piecesStolen)
                .hedges(hedges).afterLastPiece(afterLastPiece).versionId(versionId).checksumAlgorithm(checksumAlgorithm)
                .contentType(contentType)
                .lastModified(lastModified).userMetadata(userMetadata).unchanged(unchanged)
                .piecesRepaired(piecesRepaired).bannedPeers(bannedPeers);
    }

    /** The object on local disk, complete and verified. */
    public Path path() {
        return path;
    }

    /** The bucket it came from. */
    public String bucket() {
        return bucket;
    }

    public String key() {
        return key;
    }

    /** The ETag of the version fetched. */
    public String eTag() {
        return eTag;
    }

    /** Its size in bytes. */
    public long size() {
        return size;
    }

    /** The strategy used. */
    public Strategy strategy() {
        return strategy;
    }

    /** Wall time from the call to the file at its path. */
    public Duration duration() {
        return duration;
    }

    /** Bytes this node read from S3, retried reads included; 0 when the destination already held the object. */
    public long bytesFromS3() {
        return bytesFromS3;
    }

    /** Bytes this node received from other nodes. */
    public long bytesFromPeers() {
        return bytesFromPeers;
    }

    /**
     * True when the whole file was checked against S3's own checksum of the object, or (cluster strategies) against
     * its ETag when that is a digest ({@link #checksumAlgorithm()}); every piece is always checked against the
     * CRC32C computed as it arrived.
     */
    public boolean checksumVerified() {
        return checksumVerified;
    }

    /** Time this node spent in phase 1 (fetching its share from S3); the whole fetch for the flat tree. */
    public Duration phase1() {
        return phase1;
    }

    /** Time from the end of this node's phase 1 to its last piece (zero for the flat tree). */
    public Duration phase2() {
        return phase2;
    }

    /** Pieces this node fetched from S3 in works it took from other nodes. */
    public int piecesStolen() {
        return piecesStolen;
    }

    /**
     * Hedged reads: times a ranged GET read so much slower than a new one would that its unreceived tail was
     * given to a new GET.
     */
    public int hedges() {
        return hedges;
    }

    /** Where the time went from the last piece in the file to the file in place. */
    public AfterLastPiece afterLastPiece() {
        return afterLastPiece;
    }

    /**
     * The time from the last piece in the file to the file in place, in its parts (each zero when it did not
     * happen, e.g. no spot check for the flat tree).
     *
     * @param spotCheck the end of the spot check of pieces taken from peers against S3, and any repair it led to
     * @param hashing what was left of the end-to-end check to hash (and compare) after that
     * @param commit the fsync of the file, its rename into place and the fsync of the directory
     */
    public record AfterLastPiece(Duration spotCheck, Duration hashing, Duration commit) {
        public static final AfterLastPiece NONE = new AfterLastPiece(Duration.ZERO, Duration.ZERO, Duration.ZERO);

        public AfterLastPiece {
            Objects.requireNonNull(spotCheck, "spotCheck");
            Objects.requireNonNull(hashing, "hashing");
            Objects.requireNonNull(commit, "commit");
        }

        /** The three together. */
        public Duration total() {
            return spotCheck.plus(hashing).plus(commit);
        }
    }

    /** The S3 version id of the version fetched, as the HEAD returned it; empty for an unversioned bucket. */
    public Optional<String> versionId() {
        return versionId;
    }

    /** S3's checksum algorithm the whole file was checked with ({@code CRC32}, {@code SHA256}, ...), if any. */
    public Optional<String> checksumAlgorithm() {
        return checksumAlgorithm;
    }

    /** The object's {@code Content-Type}, if S3 gave one. */
    public Optional<String> contentType() {
        return contentType;
    }

    /** When the version fetched was written, if S3 said. */
    public Optional<Instant> lastModified() {
        return lastModified;
    }

    /** The object's user metadata ({@code x-amz-meta-*}, names without the prefix). */
    public Map<String, String> userMetadata() {
        return userMetadata;
    }

    /**
     * True when the destination already held this object (same ETag, version and size, file unchanged) and
     * nothing was read: see {@link FetchRequest#force()}.
     */
    public boolean unchanged() {
        return unchanged;
    }

    /**
     * Pieces that arrived from peers wrong (their bytes differed from S3's under a digest a lying peer vouched for)
     * and were read again from S3; 0 for the flat tree.
     */
    public int piecesRepaired() {
        return piecesRepaired;
    }

    /** Node ids of the peers this node banned for a wrong piece or digest, in order. */
    public List<String> bannedPeers() {
        return bannedPeers;
    }

    /** Average rate over the whole fetch in MB/s (10^6 bytes per second). */
    public double megabytesPerSecond() {
        double seconds = duration.toNanos() / 1e9;
        return seconds <= 0 ? 0 : size / 1e6 / seconds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompletedFetch c && path.equals(c.path) && bucket.equals(c.bucket) && key.equals(c.key)
                && eTag.equals(c.eTag) && size == c.size && strategy == c.strategy && duration.equals(c.duration)
                && bytesFromS3 == c.bytesFromS3 && bytesFromPeers == c.bytesFromPeers
                && checksumVerified == c.checksumVerified && phase1.equals(c.phase1) && phase2.equals(c.phase2)
                && piecesStolen == c.piecesStolen && hedges == c.hedges && afterLastPiece.equals(c.afterLastPiece)
                && versionId.equals(c.versionId)
                && checksumAlgorithm.equals(c.checksumAlgorithm) && contentType.equals(c.contentType)
                && lastModified.equals(c.lastModified) && userMetadata.equals(c.userMetadata) && unchanged == c.unchanged
                && piecesRepaired == c.piecesRepaired && bannedPeers.equals(c.bannedPeers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, bucket, key, eTag, size, strategy, duration, bytesFromS3, bytesFromPeers,
                checksumVerified, phase1, phase2, piecesStolen, hedges, afterLastPiece, versionId, checksumAlgorithm,
                contentType, lastModified,
                userMetadata, unchanged, piecesRepaired, bannedPeers);
    }

    @Override
    public String toString() {
        return "CompletedFetch[s3://" + bucket + "/" + key + versionId.map(v -> "?versionId=" + v).orElse("") + " -> "
                + path + ", " + size + " bytes, eTag " + eTag + ", " + strategy + ", " + duration.toMillis() + " ms, "
                + bytesFromS3 + " from S3, " + bytesFromPeers + " from peers, checksum "
                + (checksumVerified ? checksumAlgorithm.orElse("verified") : "pieces only")
                + (piecesStolen > 0 ? ", " + piecesStolen + " pieces stolen" : "")
                + (hedges > 0 ? ", " + hedges + " hedged reads" : "")
                + (piecesRepaired > 0 ? ", " + piecesRepaired + " pieces repaired" : "")
                + (bannedPeers.isEmpty() ? "" : ", banned " + bannedPeers) + (unchanged ? ", unchanged" : "")
                + "]";
    }

    /** Builds a {@link CompletedFetch}; path, bucket, key, ETag, strategy and duration are required. */
    public static final class Builder {
        private Path path;
        private String bucket;
        private String key;
        private String eTag;
        private long size;
        private Strategy strategy;
        private Duration duration;
        private long bytesFromS3;
        private long bytesFromPeers;
        private boolean checksumVerified;
        private Duration phase1;
        private Duration phase2;
        private int piecesStolen;
        private int hedges;
        private AfterLastPiece afterLastPiece = AfterLastPiece.NONE;
        private Optional<String> versionId = Optional.empty();
        private Optional<String> checksumAlgorithm = Optional.empty();
        private Optional<String> contentType = Optional.empty();
        private Optional<Instant> lastModified = Optional.empty();
        private Map<String, String> userMetadata = Map.of();
        private boolean unchanged;
        private int piecesRepaired;
        private List<String> bannedPeers = List.of();

        private Builder() {
        }

        public Builder path(Path path) {
            this.path = path;
            return this;
        }

        public Builder bucket(String bucket) {
            this.bucket = bucket;
            return this;
        }

        public Builder key(String key) {
            this.key = key;
            return this;
        }

        public Builder eTag(String eTag) {
            this.eTag = eTag;
            return this;
        }

        public Builder size(long size) {
            this.size = size;
            return this;
        }

        public Builder strategy(Strategy strategy) {
            this.strategy = strategy;
            return this;
        }

        public Builder duration(Duration duration) {
            this.duration = duration;
            return this;
        }

        public Builder bytesFromS3(long bytes) {
            this.bytesFromS3 = bytes;
            return this;
        }

        public Builder bytesFromPeers(long bytes) {
            this.bytesFromPeers = bytes;
            return this;
        }

        public Builder checksumVerified(boolean verified) {
            this.checksumVerified = verified;
            return this;
        }

        /** Default: the whole {@link #duration(Duration)}. */
        public Builder phase1(Duration phase1) {
            this.phase1 = phase1;
            return this;
        }

        /** Default: zero. */
        public Builder phase2(Duration phase2) {
            this.phase2 = phase2;
            return this;
        }

        public Builder piecesStolen(int pieces) {
            this.piecesStolen = pieces;
            return this;
        }

        /** Default: zero. */
        public Builder hedges(int hedges) {
            this.hedges = hedges;
            return this;
        }

        /** Default: {@link AfterLastPiece#NONE}. */
        public Builder afterLastPiece(AfterLastPiece afterLastPiece) {
            this.afterLastPiece = afterLastPiece;
            return this;
        }

        public Builder versionId(Optional<String> versionId) {
            this.versionId = versionId;
            return this;
        }

        public Builder checksumAlgorithm(Optional<String> algorithm) {
            this.checksumAlgorithm = algorithm;
            return this;
        }

        public Builder contentType(Optional<String> contentType) {
            this.contentType = contentType;
            return this;
        }

        public Builder lastModified(Optional<Instant> lastModified) {
            this.lastModified = lastModified;
            return this;
        }

        public Builder userMetadata(Map<String, String> userMetadata) {
            this.userMetadata = Objects.requireNonNull(userMetadata, "userMetadata");
            return this;
        }

        public Builder unchanged(boolean unchanged) {
            this.unchanged = unchanged;
            return this;
        }

        public Builder piecesRepaired(int pieces) {
            this.piecesRepaired = pieces;
            return this;
        }

        public Builder bannedPeers(List<String> peers) {
            this.bannedPeers = Objects.requireNonNull(peers, "bannedPeers");
            return this;
        }

        public CompletedFetch build() {
            return new CompletedFetch(this);
        }
    }
}
