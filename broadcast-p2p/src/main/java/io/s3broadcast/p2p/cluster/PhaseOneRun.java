package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.PeerMessage;
import java.util.Set;

/**
 * What phase 1 ({@link ShareFetcher} and its parts: {@link ShareRead}, {@link ShareHandOff}, {@link WorkStealing},
 * {@link PhaseGate}, {@link WorksLeftAdvert}) needs from the rest of the run.
 */
interface PhaseOneRun {
    /** Ids of the connected peers. */
    Set<String> peers();

    /** Sends {@code msg} to {@code peer}; false when it is not connected. */
    boolean send(String peer, PeerMessage msg);

    /**
     * Every peer last reported an empty work list and, in a full mesh, every member is connected ({@link
     * OrphanRule#peersOutOfWork}).
     */
    boolean peersOutOfWork();

    /** Phase 2 may start: request pieces from peers. */
    void phase2Starts();

    /** Whether some connected peer is not done yet: it can still fetch pieces from S3. */
    boolean peersFetching();

    /** The S3 fetch failed and no peer can cover for it: the run fails. */
    void failed(Throwable error);
}
