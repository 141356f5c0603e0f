package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One node of one fleet trial. Times are seconds from the fleet's common start signal; null where a contender cannot
 * tell (a baseline has no phases) or the node failed ({@code error} then says why).
 *
 * @param node index, 0 to N-1
 * @param nodeId the node's id (ours) or a name
 * @param link its link, e.g. {@code 10MB} or {@code 10MB/5MB} (down/up)
 * @param seconds start signal to the file in place ({@code fetch()} completion; a baseline's download done)
 * @param exitSeconds start signal to the node's process exit (netns level), null in-process
 * @param phase1EndSeconds start signal to the end of phase 1 (its share from S3; the HEAD and the run's start-up
 *        included)
 * @param phase2EndSeconds start signal to its last piece (from its {@code afterLastPiece} when it has one)
 * @param bytesFromS3 response bytes the S3 proxy sent to this node (heads included): measured, not reported
 * @param bytesFromS3Reported what the node itself says it read from S3, or null
 * @param bytesFromPeers bytes it received from other nodes, as it reports them
 * @param piecesStolen pieces it fetched in works taken from other nodes
 * @param cpuSeconds user + system CPU of its process (netns level); null in-process, where nodes share a process
 * @param gcSeconds GC time of its JVM, or null
 * @param jitSeconds JIT compile time of its JVM, or null
 * @param peakRssBytes peak resident set of its process, or null
 * @param sha256Match whether its file has the object's SHA-256
 * @param error why it failed, or null
 * @param hedges S3 reads whose tail went to a new GET (ours), or null
 * @param afterLastPiece its time from the last piece to the file in place, in its parts (ours), or null
 * @param role {@code join} or {@code leave} in a run with {@code --join}/{@code --leave} ({@link Churn}), else null: a
 *        leaver is not waited for and not counted in the times or {@code sha256Match}
 */
@JsonPropertyOrder({"node", "nodeId", "link", "seconds", "exitSeconds", "phase1EndSeconds", "phase2EndSeconds",
        "bytesFromS3", "bytesFromS3Reported", "bytesFromPeers", "piecesStolen", "cpuSeconds", "gcSeconds", "jitSeconds",
        "peakRssBytes", "sha256Match", "error", "hedges", "afterLastPiece", "role"})
record FleetNode(int node, String nodeId, String link, Double seconds, Double exitSeconds, Double phase1EndSeconds,
        Double phase2EndSeconds, long bytesFromS3, Long bytesFromS3Reported, Long bytesFromPeers, Integer piecesStolen,
        Double cpuSeconds, Double gcSeconds, Double jitSeconds, Long peakRssBytes, boolean sha256Match, String error,
        Integer hedges, AfterLastPiece afterLastPiece, String role) {

    /** A node in a run without join or leave. */
    FleetNode(int node, String nodeId, String link, Double seconds, Double exitSeconds, Double phase1EndSeconds,
            Double phase2EndSeconds, long bytesFromS3, Long bytesFromS3Reported, Long bytesFromPeers, Integer piecesStolen,
            Double cpuSeconds, Double gcSeconds, Double jitSeconds, Long peakRssBytes, boolean sha256Match, String error,
            Integer hedges, AfterLastPiece afterLastPiece) {
        this(node, nodeId, link, seconds, exitSeconds, phase1EndSeconds, phase2EndSeconds, bytesFromS3, bytesFromS3Reported,
                bytesFromPeers, piecesStolen, cpuSeconds, gcSeconds, jitSeconds, peakRssBytes, sha256Match, error, hedges,
                afterLastPiece, null);
    }

    /** A node without {@link #hedges} and {@link #afterLastPiece} (a baseline's, or a failed one). */
    FleetNode(int node, String nodeId, String link, Double seconds, Double exitSeconds, Double phase1EndSeconds,
            Double phase2EndSeconds, long bytesFromS3, Long bytesFromS3Reported, Long bytesFromPeers, Integer piecesStolen,
            Double cpuSeconds, Double gcSeconds, Double jitSeconds, Long peakRssBytes, boolean sha256Match, String error) {
        this(node, nodeId, link, seconds, exitSeconds, phase1EndSeconds, phase2EndSeconds, bytesFromS3, bytesFromS3Reported,
                bytesFromPeers, piecesStolen, cpuSeconds, gcSeconds, jitSeconds, peakRssBytes, sha256Match, error, null, null,
                null);
    }

    FleetNode withBytesFromS3(long bytes) {
        return new FleetNode(node, nodeId, link, seconds, exitSeconds, phase1EndSeconds, phase2EndSeconds, bytes,
                bytesFromS3Reported, bytesFromPeers, piecesStolen, cpuSeconds, gcSeconds, jitSeconds, peakRssBytes,
                sha256Match, error, hedges, afterLastPiece, role);
    }

    /** This node with {@code role} ({@link Churn.Role}; null for a node that starts and stays). */
    FleetNode withRole(Churn.Role role) {
        return new FleetNode(node, nodeId, link, seconds, exitSeconds, phase1EndSeconds, phase2EndSeconds, bytesFromS3,
                bytesFromS3Reported, bytesFromPeers, piecesStolen, cpuSeconds, gcSeconds, jitSeconds, peakRssBytes,
                sha256Match, error, hedges, afterLastPiece, role == null || role == Churn.Role.STAY ? null : role.describe());
    }

    /** Whether this node left the run on purpose ({@code --leave}): not waited for, not checked. */
    boolean leaver() {
        return "leave".equals(role);
    }
}
