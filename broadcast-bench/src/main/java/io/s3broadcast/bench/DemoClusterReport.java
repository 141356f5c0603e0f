package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;

/**
 * The JSON line of {@code demo} with a cluster: the flat tree and a cluster strategy on the same nodes and object;
 * every field is described in {@code docs/bench.md}.
 *
 * @param command always {@code demo}
 * @param nodes nodes in the cluster
 * @param size object size in bytes
 * @param endpointKind always {@code embedded}
 * @param server {@code s3proxy}
 * @param endpoint the S3 endpoint
 * @param bucket the object's bucket
 * @param key the object's key
 * @param sha256 the object's SHA-256
 * @param strategy the cluster strategy compared with the flat tree
 * @param settings each node's transfer settings
 * @param runs the trial of each strategy, {@code FLAT_TREE} first, keyed by strategy
 * @param speedup the flat tree's slowest completion time over the cluster strategy's
 * @param s3ReadsSaved how many times fewer the cluster strategy read the object from S3 than the flat tree
 * @param sha256Match whether every node of both runs ended with the object's SHA-256
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "nodes", "size", "endpointKind", "server", "endpoint", "bucket", "key", "sha256",
        "strategy", "settings", "runs", "speedup", "s3ReadsSaved", "sha256Match", "machine"})
record DemoClusterReport(
        String command,
        int nodes,
        long size,
        String endpointKind,
        String server,
        String endpoint,
        String bucket,
        String key,
        String sha256,
        String strategy,
        Map<String, Object> settings,
        Map<String, ClusterTrial> runs,
        Double speedup,
        Double s3ReadsSaved,
        boolean sha256Match,
        Machine machine) {
}
