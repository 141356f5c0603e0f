package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

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
 * @param passed the defence held: nothing received, nothing held open, honest nodes byte-exact
 * @param notes what else the scenario saw, for people
 */
@JsonPropertyOrder({"command", "scenario", "nodes", "objectBytes", "attempts", "adversaryObjectBytes",
    "bitfieldsReceived", "metadataReceived", "connectionsHeldOpen", "honestByteExact", "honestConnectionsRefused", "seconds", "passed", "notes"})
public record ChaosResult(String command, String scenario, int nodes, long objectBytes, int attempts,
        long adversaryObjectBytes, int bitfieldsReceived, int metadataReceived, int connectionsHeldOpen,
        boolean honestByteExact, int honestConnectionsRefused, double seconds, boolean passed, String notes) {

    /** A result; {@code passed} follows from the numbers. */
    public static ChaosResult of(String scenario, int nodes, long objectBytes, int attempts, long adversaryObjectBytes,
            int bitfieldsReceived, int metadataReceived, int connectionsHeldOpen, boolean honestByteExact,
            int honestConnectionsRefused, double seconds, String notes) {
        boolean passed = adversaryObjectBytes == 0 && bitfieldsReceived == 0 && metadataReceived == 0
                && connectionsHeldOpen == 0 && honestByteExact && honestConnectionsRefused == 0;
        return new ChaosResult("chaos", scenario, nodes, objectBytes, attempts, adversaryObjectBytes, bitfieldsReceived,
                metadataReceived, connectionsHeldOpen, honestByteExact, honestConnectionsRefused, Math.round(seconds * 1000) / 1000.0, passed,
                notes);
    }
}
