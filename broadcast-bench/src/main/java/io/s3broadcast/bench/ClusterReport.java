package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The JSON line {@code cluster} prints for one strategy; every field is described in {@code docs/bench.md}.
 *
 * @param command always {@code cluster}
 * @param strategy the strategy every node used
 * @param nodes nodes in the cluster
 * @param size object size in bytes
 * @param trials trials run
 * @param endpointKind always {@code embedded}
 * @param server {@code s3proxy}
 * @param endpoint the S3 endpoint
 * @param bucket the object's bucket
 * @param key the object's key
 * @param sha256 the object's SHA-256
 * @param settings each node's transfer settings ({@code "default"} where Broadcast's default applied)
 * @param throttleNode the node whose S3 connections were throttled, or null
 * @param throttleRate its rate per S3 connection in bytes per second, or null
 * @param nodeRate the other nodes' rate per S3 connection in bytes per second, or null when unlimited
 * @param fastest median over trials of the fastest node's completion time, seconds
 * @param average median over trials of the mean completion time
 * @param slowest median over trials of the slowest node's completion time (when the whole cluster has the object)
 * @param s3Reads mean over trials of bytes read from S3 by all nodes divided by the object size
 * @param sha256Match whether every node of every trial ended with the object's SHA-256
 * @param runs each trial, with every node's numbers
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "strategy", "nodes", "size", "trials", "endpointKind", "server", "endpoint", "bucket",
        "key", "sha256", "settings", "throttleNode", "throttleRate", "nodeRate", "fastest", "average", "slowest",
        "s3Reads", "sha256Match", "runs", "machine"})
record ClusterReport(
        String command,
        String strategy,
        int nodes,
        long size,
        int trials,
        String endpointKind,
        String server,
        String endpoint,
        String bucket,
        String key,
        String sha256,
        Map<String, Object> settings,
        Integer throttleNode,
        Long throttleRate,
        Long nodeRate,
        Double fastest,
        Double average,
        Double slowest,
        double s3Reads,
        boolean sha256Match,
        List<ClusterTrial> runs,
        Machine machine) {
}
