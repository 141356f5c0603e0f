package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * One trial of an in-process cluster: every node started at once, each one's completion time.
 *
 * @param trial 1-based trial number
 * @param nodes per node, in node order
 * @param fastest completion time of the first node to finish, seconds; null if no node finished
 * @param average mean completion time over the nodes that finished
 * @param slowest completion time of the last node, seconds; null if any node failed
 * @param bytesFromS3 bytes read from S3 by all nodes together
 * @param s3Reads {@code bytesFromS3 / size}: how many times the object was read out of S3 (1 is ideal, N for the flat tree)
 * @param sha256Match whether every node finished with the object's SHA-256
 */
@JsonPropertyOrder({"trial", "fastest", "average", "slowest", "bytesFromS3", "s3Reads", "sha256Match", "nodes"})
record ClusterTrial(int trial, List<NodeResult> nodes, Double fastest, Double average, Double slowest,
        long bytesFromS3, double s3Reads, boolean sha256Match) {

    static ClusterTrial of(int trial, List<NodeResult> nodes, long size) {
        List<Double> done = nodes.stream().map(NodeResult::seconds).filter(Objects::nonNull).sorted().toList();
        boolean allDone = done.size() == nodes.size();
        long s3 = nodes.stream().map(NodeResult::bytesFromS3).filter(Objects::nonNull).mapToLong(Long::longValue).sum();
        return new ClusterTrial(trial, List.copyOf(nodes),
                done.isEmpty() ? null : done.get(0),
                done.isEmpty() ? null : SingleCommand.round(done.stream().mapToDouble(d -> d).average().orElseThrow(), 3),
                allDone && !done.isEmpty() ? done.get(done.size() - 1) : null,
                s3, size == 0 ? 0 : SingleCommand.round((double) s3 / size, 3),
                allDone && nodes.stream().allMatch(NodeResult::sha256Match));
    }
}
