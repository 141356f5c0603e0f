package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The JSON line of {@code node --prefix}: every object under the prefix as one broadcast. {@code objects} and
 * {@code totals} are null when the fetch failed ({@code error} then says why).
 *
 * @param command always {@code node}
 * @param nodeId this node's id as configured
 * @param strategy the strategy asked for (or, by default, the one used)
 * @param registry the registry spec
 * @param listen the address the peer server was asked to bind
 * @param bucket the objects' bucket
 * @param prefix the prefix fetched
 * @param objects one entry per object, in key order
 * @param totals sums over the objects
 * @param settings transfer settings ({@code "default"} where Broadcast's default applied)
 * @param error why the fetch failed, or null
 * @param machine what it ran on
 * @param process when it started and finished on the wall clock and what its JVM spent
 */
@JsonPropertyOrder({"command", "nodeId", "strategy", "registry", "listen", "bucket", "prefix", "objects", "totals",
        "settings", "error", "machine", "process"})
record NodePrefixReport(
        String command,
        String nodeId,
        String strategy,
        String registry,
        String listen,
        String bucket,
        String prefix,
        List<ObjectResult> objects,
        Totals totals,
        Map<String, Object> settings,
        String error,
        Machine machine,
        NodeReport.NodeProcess process) {

    /**
     * One object of the prefix.
     *
     * @param key its key
     * @param eTag the ETag of the version fetched
     * @param path where it was put
     * @param size its size in bytes
     * @param sha256 SHA-256 of the file on disk, computed by the bench after the fetch (untimed)
     * @param bytesFromS3 bytes this node read from S3 for it, retries included
     * @param bytesFromPeers bytes this node received from other nodes for it
     * @param seconds its fetch's duration
     * @param checksumVerified whether the whole file was checked against S3's checksum (or, on a cluster, its ETag)
     * @param unchanged whether the destination already held it (flat tree only), so nothing was read
     */
    @JsonPropertyOrder({"key", "eTag", "path", "size", "sha256", "bytesFromS3", "bytesFromPeers", "seconds",
            "checksumVerified", "unchanged"})
    record ObjectResult(String key, String eTag, String path, long size, String sha256, long bytesFromS3,
            long bytesFromPeers, double seconds, boolean checksumVerified, boolean unchanged) {
    }

    /**
     * Sums over the objects.
     *
     * @param objects how many objects
     * @param size their bytes
     * @param bytesFromS3 bytes read from S3 for all of them
     * @param bytesFromPeers bytes received from other nodes for all of them
     * @param seconds from the call to the last object in place
     */
    @JsonPropertyOrder({"objects", "size", "bytesFromS3", "bytesFromPeers", "seconds"})
    record Totals(int objects, long size, long bytesFromS3, long bytesFromPeers, double seconds) {

        static Totals of(List<ObjectResult> objects, double seconds) {
            return new Totals(objects.size(), objects.stream().mapToLong(ObjectResult::size).sum(),
                    objects.stream().mapToLong(ObjectResult::bytesFromS3).sum(),
                    objects.stream().mapToLong(ObjectResult::bytesFromPeers).sum(), SingleCommand.round(seconds, 3));
        }
    }
}
