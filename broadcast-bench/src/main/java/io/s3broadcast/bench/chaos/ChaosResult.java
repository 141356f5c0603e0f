package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What one scenario showed; printed as a table row and as one JSON line.
 *
 * @param command always {@code chaos}
 * @param scenario the scenario's name
 * @param nodes honest node processes started
 * @param objectBytes size of the object
 * @param attempts connections the adversary opened
 * @param adversaryObjectBytes bytes of the object the adversary received (piece data)
 * @param bitfieldsReceived bitfields the adversary received
 * @param metadataReceived messages beyond the handshake the adversary received that tell anything about the
 *     object (AUTH with its layout, HAVE, WORKS_LEFT, ...)
 * @param connectionsHeldOpen adversary connections still open after the handshake timeout (plus a grace)
 * @param honestByteExact every honest node published the object with the right SHA-256
 * @param honestConnectionsRefused connections between honest nodes that a node closed for misbehaviour (a false
 *     alarm of the claim checks; must be 0)
 * @param seconds wall time of the scenario
 * @param passed the defence held: nothing received, nothing held open, honest nodes byte-exact; for a lying
 *     scenario: every honest node it reached banned the liar, and every honest node succeeded byte-exact
 * @param notes what else the scenario saw, for people
 * @param liarReached lying scenarios: honest nodes the liar completed a handshake with (null otherwise)
 * @param liarBannedBy lying scenarios: honest nodes that banned the liar, by their result or their log
 * @param piecesRepaired lying scenarios: pieces the honest nodes read again from S3 after a liar's, summed
 * @param s3BytesPerObject lying scenarios: each honest node's bytes read from S3 over the object's size
 * @param endToEndDigest lying scenarios: what binds the object's bytes end to end (MD5 ETag, or none)
 */
@JsonPropertyOrder({"command", "scenario", "nodes", "objectBytes", "attempts", "adversaryObjectBytes",
    "bitfieldsReceived", "metadataReceived", "connectionsHeldOpen", "honestByteExact", "honestConnectionsRefused",
    "seconds", "passed", "notes", "liarReached", "liarBannedBy", "piecesRepaired", "s3BytesPerObject", "endToEndDigest"})
public record ChaosResult(String command, String scenario, int nodes, long objectBytes, int attempts,
        long adversaryObjectBytes, int bitfieldsReceived, int metadataReceived, int connectionsHeldOpen,
        boolean honestByteExact, int honestConnectionsRefused, double seconds, boolean passed, String notes,
        Integer liarReached, Integer liarBannedBy, Integer piecesRepaired, List<Double> s3BytesPerObject,
        String endToEndDigest) {

    /** A result of an intruding scenario; {@code passed} follows from the numbers. */
    public static ChaosResult of(String scenario, int nodes, long objectBytes, int attempts, long adversaryObjectBytes,
            int bitfieldsReceived, int metadataReceived, int connectionsHeldOpen, boolean honestByteExact,
            int honestConnectionsRefused, double seconds, String notes) {
        boolean passed = adversaryObjectBytes == 0 && bitfieldsReceived == 0 && metadataReceived == 0
                && connectionsHeldOpen == 0 && honestByteExact && honestConnectionsRefused == 0;
        return new ChaosResult("chaos", scenario, nodes, objectBytes, attempts, adversaryObjectBytes, bitfieldsReceived,
                metadataReceived, connectionsHeldOpen, honestByteExact, honestConnectionsRefused, seconds(seconds), passed,
                notes, null, null, null, null, null);
    }

    /**
     * A result of a lying scenario, where the liar is let in (it holds the secret) and what it receives is not the
     * point: it passes when every honest node it reached banned it, every honest node published the exact object
     * and succeeded, and no honest node refused another.
     */
    public static ChaosResult ofLiar(String scenario, int nodes, long objectBytes, int attempts, boolean honestByteExact,
            int honestConnectionsRefused, double seconds, String notes, int liarReached, int liarBannedBy,
            int piecesRepaired, List<Double> s3BytesPerObject, String endToEndDigest) {
        boolean passed = honestByteExact && honestConnectionsRefused == 0 && liarReached > 0
                && liarBannedBy == liarReached;
        return new ChaosResult("chaos", scenario, nodes, objectBytes, attempts, 0, 0, 0, 0, honestByteExact,
                honestConnectionsRefused, seconds(seconds), passed, notes, liarReached, liarBannedBy, piecesRepaired,
                List.copyOf(s3BytesPerObject), endToEndDigest);
    }

    private static double seconds(double s) {
        return Math.round(s * 1000) / 1000.0;
    }
}
