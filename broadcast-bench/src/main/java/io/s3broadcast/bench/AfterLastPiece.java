package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.CompletedFetch;

/**
 * A node's time from its last piece to its file in place, in seconds, in the parts its fetch reports
 * ({@link CompletedFetch#afterLastPiece()}).
 *
 * @param spotCheck the end of the spot check of pieces taken from peers against S3
 * @param hashing what was left of the end-to-end check
 * @param commit fsync, rename, fsync of the directory
 */
@JsonPropertyOrder({"spotCheck", "hashing", "commit"})
record AfterLastPiece(double spotCheck, double hashing, double commit) {

    static AfterLastPiece of(CompletedFetch done) {
        CompletedFetch.AfterLastPiece a = done.afterLastPiece();
        return new AfterLastPiece(NodeCommand.seconds(a.spotCheck()), NodeCommand.seconds(a.hashing()),
                NodeCommand.seconds(a.commit()));
    }

    /** From a node's JSON line, or null when it has none. */
    static AfterLastPiece of(JsonNode json) {
        JsonNode a = json.path("afterLastPiece");
        if (!a.path("commit").isNumber()) {
            return null;
        }
        return new AfterLastPiece(a.path("spotCheck").asDouble(), a.path("hashing").asDouble(), a.path("commit").asDouble());
    }

    double total() {
        return spotCheck + hashing + commit;
    }
}
