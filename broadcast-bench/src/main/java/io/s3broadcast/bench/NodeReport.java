package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The JSON line of {@code node}; every field is described in {@code docs/bench.md}. Fields about the fetched file are
 * null when the fetch failed ({@code error} then says why).
 *
 * @param command always {@code node}
 * @param nodeId this node's id as configured
 * @param strategy the strategy asked for
 * @param registry the registry spec
 * @param listen the address the peer server was asked to bind
 * @param bucket the object's bucket
 * @param key the object's key
 * @param eTag the ETag of the version fetched
 * @param versionId the S3 version id of the version fetched; null for an unversioned bucket
 * @param path where the object was put
 * @param size object size in bytes
 * @param sha256 SHA-256 of the file on disk, computed by the bench after the fetch (untimed)
 * @param bytesFromS3 bytes this node read from S3, retries included
 * @param bytesFromPeers bytes this node received from other nodes
 * @param seconds the fetch's duration, from the call to the file in place
 * @param phase1Seconds time in phase 1 (this node's share from S3)
 * @param phase2Seconds time from the end of phase 1 to the last piece
 * @param piecesStolen pieces this node fetched from S3 in works it took from other nodes
 * @param rate MB/s (10^6 bytes per second) over the fetch
 * @param checksumVerified whether the whole file was checked against S3's own checksum (or, on a cluster, its ETag)
 * @param piecesRepaired pieces that arrived from peers wrong and were read again from S3
 * @param bannedPeers peers banned for a wrong piece or digest
 * @param settings transfer settings ({@code "default"} where Broadcast's default applied)
 * @param error why the fetch failed, or null
 * @param machine what it ran on
 * @param process when it started and finished on the wall clock and what its JVM spent (for fleets)
 * @param hedges S3 reads whose unreceived tail went to a new GET ({@code CompletedFetch.hedges}), or null
 * @param afterLastPiece the time from the last piece to the file in place, in its parts (null when the fetch failed)
 * @param samples with {@code --samples}: {@code [epoch millis of a 250 ms bucket, bytes of completed pieces at its
 *     end]} per bucket in which pieces completed; else null
 */
@JsonPropertyOrder({"command", "nodeId", "strategy", "registry", "listen", "bucket", "key", "eTag", "versionId", "path", "size",
        "sha256", "bytesFromS3", "bytesFromPeers", "seconds", "phase1Seconds", "phase2Seconds", "piecesStolen", "rate",
        "checksumVerified", "piecesRepaired", "bannedPeers", "settings", "error", "machine", "process", "hedges",
        "afterLastPiece", "samples"})
record NodeReport(
        String command,
        String nodeId,
        String strategy,
        String registry,
        String listen,
        String bucket,
        String key,
        String eTag,
        String versionId,
        String path,
        Long size,
        String sha256,
        Long bytesFromS3,
        Long bytesFromPeers,
        Double seconds,
        Double phase1Seconds,
        Double phase2Seconds,
        Integer piecesStolen,
        Double rate,
        Boolean checksumVerified,
        Integer piecesRepaired,
        List<String> bannedPeers,
        Map<String, Object> settings,
        String error,
        Machine machine,
        NodeProcess process,
        Integer hedges,
        AfterLastPiece afterLastPiece,
        List<long[]> samples) {

    /** A report without {@link #samples}. */
    NodeReport(String command, String nodeId, String strategy, String registry, String listen, String bucket, String key,
            String eTag, String versionId, String path, Long size, String sha256, Long bytesFromS3, Long bytesFromPeers,
            Double seconds, Double phase1Seconds, Double phase2Seconds, Integer piecesStolen, Double rate,
            Boolean checksumVerified, Integer piecesRepaired, List<String> bannedPeers, Map<String, Object> settings,
            String error, Machine machine, NodeProcess process, Integer hedges, AfterLastPiece afterLastPiece) {
        this(command, nodeId, strategy, registry, listen, bucket, key, eTag, versionId, path, size, sha256, bytesFromS3,
                bytesFromPeers, seconds, phase1Seconds, phase2Seconds, piecesStolen, rate, checksumVerified, piecesRepaired,
                bannedPeers, settings, error, machine, process, hedges, afterLastPiece, null);
    }

    /** A report without {@link #hedges} and {@link #afterLastPiece}. */
    NodeReport(String command, String nodeId, String strategy, String registry, String listen, String bucket, String key,
            String eTag, String versionId, String path, Long size, String sha256, Long bytesFromS3, Long bytesFromPeers,
            Double seconds, Double phase1Seconds, Double phase2Seconds, Integer piecesStolen, Double rate,
            Boolean checksumVerified, Integer piecesRepaired, List<String> bannedPeers, Map<String, Object> settings,
            String error, Machine machine, NodeProcess process) {
        this(command, nodeId, strategy, registry, listen, bucket, key, eTag, versionId, path, size, sha256, bytesFromS3,
                bytesFromPeers, seconds, phase1Seconds, phase2Seconds, piecesStolen, rate, checksumVerified, piecesRepaired,
                bannedPeers, settings, error, machine, process, null, null, null);
    }

    /**
     * The node process's clock and costs.
     *
     * @param method {@code ours} or {@code transfer-manager}
     * @param readyEpochMillis when it was ready to fetch (JVM up, client built), wall clock
     * @param startEpochMillis when it got the start signal and called fetch, wall clock
     * @param doneEpochMillis when the fetch completed (file in place), wall clock
     * @param cpuSeconds CPU of the process so far (user + system), at the JSON line
     * @param gcSeconds time in garbage collection so far
     * @param jitSeconds time in JIT compilation so far
     * @param buildSeconds how long {@code Broadcast.builder().build()} took (the S3 client made), before the fetch
     * @param cpuAtStartSeconds CPU of the process when it got the start signal (JVM start-up, the client built):
     *     {@code cpuSeconds} minus this is what the fetch and the linger cost
     */
    record NodeProcess(String method, long readyEpochMillis, long startEpochMillis, Long doneEpochMillis, double cpuSeconds,
            double gcSeconds, double jitSeconds, double buildSeconds, double cpuAtStartSeconds) {
    }
}
