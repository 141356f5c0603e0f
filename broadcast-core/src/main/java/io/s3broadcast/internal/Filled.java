package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectInfo;

/**
 * What filling one fetch's store came to, and what its result says of it: the object, the cluster run's numbers
 * (null for the flat tree) and what checks against S3 found and replaced. Immutable.
 */
record Filled(ObjectInfo info, ClusterRun.Outcome outcome, ClusterRun.Repair repair) {

    Filled(ObjectInfo info, ClusterRun.Outcome outcome) {
        this(info, outcome, ClusterRun.Repair.NONE);
    }

    Filled with(ClusterRun.Repair r) {
        return new Filled(info, outcome, r);
    }

    /**
     * Whether {@code verified} checked a whole-object digest; throws its mismatch, saying so when every piece taken
     * from peers was read again from S3 and it is still wrong.
     *
     * @throws BroadcastException.ChecksumMismatch when the file is not the object S3 describes
     */
    boolean checked(ObjectVerifier.Result verified) {
        try {
            return verified.orThrow();
        } catch (BroadcastException.ChecksumMismatch e) {
            if (repair.piecesChecked() > 0) {
                throw new BroadcastException.ChecksumMismatch(e.getMessage() + " even after every piece taken from"
                        + " peers was read again from S3 (" + repair.piecesRepaired() + " replaced, banned: "
                        + repair.bannedPeers() + "); the object may have changed under its ETag");
            }
            throw e;
        }
    }

    /** {@code done} with what a cluster run did: bytes from peers, its phases, pieces stolen and repaired, bans. */
    CompletedFetch.Builder describe(CompletedFetch.Builder done) {
        if (outcome != null) {
            done.bytesFromPeers(outcome.bytesFromPeers()).phase1(outcome.phase1()).phase2(outcome.phase2())
                    .piecesStolen(outcome.piecesStolen()).piecesRepaired(repair.piecesRepaired())
                    .bannedPeers(repair.bannedPeers());
        }
        return done;
    }
}
