package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The JSON line of {@code demo --prefix}: every node fetches every object under a prefix ({@code fetchAll}) with the
 * flat tree and with a cluster strategy.
 *
 * @param command always {@code demo}
 * @param nodes nodes in the cluster
 * @param bucket the objects' bucket
 * @param prefix the prefix fetched
 * @param objects how many objects
 * @param objectSize bytes of each
 * @param size bytes of all of them
 * @param strategy the cluster strategy compared with the flat tree
 * @param settings each node's transfer settings
 * @param runs every node's result per strategy, {@code FLAT_TREE} first
 * @param sha256Match whether every node of both runs ended with every object's SHA-256
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "nodes", "bucket", "prefix", "objects", "objectSize", "size", "strategy", "settings",
        "runs", "sha256Match", "machine"})
record DemoPrefixReport(String command, int nodes, String bucket, String prefix, int objects, long objectSize, long size,
        String strategy, Map<String, Object> settings, Map<String, List<Node>> runs, boolean sha256Match,
        Machine machine) {

    static DemoPrefixReport of(int nodes, String bucket, String prefix, int objects, long objectSize, Strategy strategy,
            Map<String, Object> settings, Map<String, List<Node>> runs, boolean match, Machine machine) {
        return new DemoPrefixReport("demo", nodes, bucket, prefix, objects, objectSize, objectSize * objects,
                strategy.name(), settings, runs, match, machine);
    }

    /**
     * One node's {@code fetchAll}; byte and time fields are null when it failed.
     *
     * @param node index of the node
     * @param nodeId its id in the group
     * @param seconds from the common start to its last object in place
     * @param bytesFromS3 bytes it read from S3 for all objects
     * @param bytesFromPeers bytes it received from other nodes for all objects
     * @param transferredBytes its progress at the end: bytes of all objects in place (one total, from fetchAll)
     * @param sha256Match whether every object's file has the object's SHA-256
     * @param error why it failed, or null
     */
    @JsonPropertyOrder({"node", "nodeId", "seconds", "bytesFromS3", "bytesFromPeers", "transferredBytes", "sha256Match",
            "error"})
    record Node(int node, String nodeId, Double seconds, Long bytesFromS3, Long bytesFromPeers, Long transferredBytes,
            boolean sha256Match, String error) {

        /** Waits for node {@code i}'s handle and checks its files against {@code stored} (in key order). */
        static Node of(int i, String id, FetchAllHandle handle, List<StoredObject> stored, long startedNanos) {
            try {
                List<CompletedFetch> done = handle.join();
                double seconds = SingleCommand.round((System.nanoTime() - startedNanos) / 1e9, 3);
                boolean match = done.size() == stored.size();
                for (int k = 0; match && k < done.size(); k++) {
                    match = TestCluster.sha256(done.get(k).path()).equals(stored.get(k).sha256());
                }
                return new Node(i, id, seconds, TestCluster.bytesFromS3(done),
                        done.stream().mapToLong(CompletedFetch::bytesFromPeers).sum(),
                        handle.progress().transferredBytes(), match, null);
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                return new Node(i, id, null, null, null, null, false, String.valueOf(cause));
            }
        }
    }

    static Double slowest(List<Node> nodes) {
        return nodes.stream().map(Node::seconds).anyMatch(s -> s == null) ? null
                : nodes.stream().mapToDouble(Node::seconds).max().orElse(0);
    }

    static double s3Reads(List<Node> nodes, long size) {
        long read = nodes.stream().mapToLong(n -> n.bytesFromS3() == null ? 0 : n.bytesFromS3()).sum();
        return size == 0 ? 0 : SingleCommand.round((double) read / size, 2);
    }
}
