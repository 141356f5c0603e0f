package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One node of one trial of an in-process cluster ({@code cluster}, {@code demo}). Timing and byte fields are null
 * when the node's fetch failed.
 *
 * @param node index of the node, 0 to N-1
 * @param nodeId its id in the group
 * @param throttled whether its S3 connections went through the throttled proxy ({@code --throttle-node})
 * @param seconds from the moment all nodes were started to this node's file in place (the paper's completion time)
 * @param fetchSeconds the fetch's own duration ({@code CompletedFetch.duration})
 * @param phase1Seconds time in phase 1 (its share from S3; the whole fetch for the flat tree)
 * @param phase2Seconds time from the end of phase 1 to its last piece
 * @param bytesFromS3 bytes it read from S3, retries included
 * @param bytesFromPeers bytes it received from other nodes
 * @param piecesStolen pieces it fetched from S3 in works taken from other nodes
 * @param sha256Match whether its file has the object's SHA-256
 * @param error why its fetch failed, or null
 * @param hedges its S3 reads whose tail went to a new GET ({@code CompletedFetch.hedges}), or null
 * @param afterLastPiece its time from the last piece to the file in place, in its parts, or null
 */
@JsonPropertyOrder({"node", "nodeId", "throttled", "seconds", "fetchSeconds", "phase1Seconds", "phase2Seconds",
        "bytesFromS3", "bytesFromPeers", "piecesStolen", "sha256Match", "error", "hedges", "afterLastPiece"})
record NodeResult(
        int node,
        String nodeId,
        boolean throttled,
        Double seconds,
        Double fetchSeconds,
        Double phase1Seconds,
        Double phase2Seconds,
        Long bytesFromS3,
        Long bytesFromPeers,
        Integer piecesStolen,
        boolean sha256Match,
        String error,
        Integer hedges,
        AfterLastPiece afterLastPiece) {

    /** A result without {@link #hedges} and {@link #afterLastPiece}. */
    NodeResult(int node, String nodeId, boolean throttled, Double seconds, Double fetchSeconds, Double phase1Seconds,
            Double phase2Seconds, Long bytesFromS3, Long bytesFromPeers, Integer piecesStolen, boolean sha256Match,
            String error) {
        this(node, nodeId, throttled, seconds, fetchSeconds, phase1Seconds, phase2Seconds, bytesFromS3, bytesFromPeers,
                piecesStolen, sha256Match, error, null, null);
    }
}
