package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.ClusterRun.Outcome;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a run's {@link Outcome} reports, counted as the run goes: the piece bytes it kept from peers, the peers it
 * exchanged pieces with either way, and its phases' times from when it started. Bytes are counted on the run's loop;
 * the peers also by the connections' loops, as they serve ({@link #exchangedWith()} is thread-safe).
 */
final class OutcomeTally {

    /** The outcome of a run with nothing to fetch (an empty object). */
    static final Outcome EMPTY = new Outcome(0, Duration.ZERO, Duration.ZERO, 0, 0);

    private final long startNanos;
    private final Set<String> exchangedWith = ConcurrentHashMap.newKeySet();
    private long bytesFromPeers; // run loop only

    /** @param startNanos when the run started, on the run's ticker */
    OutcomeTally(long startNanos) {
        this.startNanos = startNanos;
    }

    /** The peers this node exchanged pieces with: those it took a piece from, and those it served one (thread-safe). */
    Set<String> exchangedWith() {
        return exchangedWith;
    }

    /** {@code length} bytes of a piece from {@code peer} were checked and stored. */
    void fromPeer(String peer, int length) {
        bytesFromPeers += length;
        exchangedWith.add(peer);
    }

    /**
     * The outcome of a run complete at {@code nowNanos} whose phase 1 ended at {@code phase1EndNanos} (same ticker as
     * the start), with {@code piecesStolen} pieces read from S3 in works taken from other nodes.
     */
    Outcome outcome(long phase1EndNanos, long nowNanos, int piecesStolen) {
        return new Outcome(bytesFromPeers, Duration.ofNanos(phase1EndNanos - startNanos),
                Duration.ofNanos(nowNanos - phase1EndNanos), piecesStolen, exchangedWith.size());
    }
}
