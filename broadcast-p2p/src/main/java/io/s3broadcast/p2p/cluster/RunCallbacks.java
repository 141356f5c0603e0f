package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.SourceListener;
import java.util.Map;
import java.util.Set;

/**
 * What the components {@link RunParts} makes ask of the run, as the callback interfaces they declare: the S3
 * fetch's listener, {@link PhaseOneRun}, {@link Disputes.Run} and {@link PieceReceiver.Run}. Each is a thin
 * adapter onto the run and its other components (read when called, so they may be made before those are); the
 * rules stay in the components.
 */
final class RunCallbacks {

    private RunCallbacks() {
    }

    /**
     * The S3 fetch's events: to the listener, and each stored piece to the run's loop.
     *
     * @param progress told (on an S3 thread) when bytes arrived from S3
     */
    static SourceListener s3Listener(NodeRun run, RunParts parts, ClusterTask task, Runnable progress) {
        return new SourceListener() {
            @Override
            public void bytesReceived(long bytes) {
                progress.run();
                task.listener().bytesReceived(bytes);
            }

            @Override
            public void pieceStored(int piece) {
                task.listener().pieceStored(piece);
                run.execute(() -> parts.stored.stored(piece, null));
            }

            @Override
            public void retrying(PieceRun r, int attempt, long delayMillis, Throwable cause) {
                task.listener().retrying(r, attempt, delayMillis, cause);
            }

            @Override
            public void hedged(long tailBytes) {
                task.listener().hedged(tailBytes);
            }
        };
    }

    /** What phase 1 sees of the run: the connected peers, their work lists, and the phase-2 start. */
    static PhaseOneRun phaseOne(NodeRun run, RunParts parts, Map<String, Peer> peers) {
        return new PhaseOneRun() {
            @Override
            public Set<String> peers() {
                return peers.keySet();
            }

            @Override
            public boolean send(String peer, PeerMessage msg) {
                if (msg instanceof WorksLeft) {
                    // Checked against the pieces announced: no HAVE may still be waiting.
                    parts.stored.flushHaves();
                }
                return Peer.send(peers, peer, msg);
            }

            @Override
            public boolean peersOutOfWork() {
                return parts.orphans.peersOutOfWork();
            }

            @Override
            public void phase2Starts() {
                parts.exchange.pumpAll();
            }

            @Override
            public boolean peersFetching() {
                return peers.values().stream().anyMatch(p -> !p.done);
            }

            @Override
            public void failed(Throwable error) {
                run.fail(error);
            }
        };
    }

    /** How the run takes what {@link Disputes} settles. */
    static Disputes.Run disputes(NodeRun run, RunParts parts, ClusterTask task) {
        return new Disputes.Run() {
            @Override
            public void pieceAdded(int piece) {
                task.listener().pieceStored(piece);
                parts.stored.stored(piece, null);
            }

            @Override
            public void checksEnded() {
                if (!run.closing() && !run.isComplete() && parts.requests.isComplete()) {
                    run.complete();
                }
            }

            @Override
            public void failed(Throwable error) {
                run.fail(error);
            }
        };
    }

    /** How the run takes what {@link PieceReceiver} judges; {@code tally} counts the pieces kept from peers. */
    static PieceReceiver.Run receiver(NodeRun run, RunParts parts, ClusterTask task, OutcomeTally tally,
            Map<String, Peer> peers) {
        return new PieceReceiver.Run() {
            @Override
            public boolean closing() {
                return run.closing();
            }

            @Override
            public void failed(Throwable error) {
                run.fail(error);
            }

            @Override
            public void downloaded(String peer, int length) {
                parts.choke.downloaded(peer, length);
            }

            @Override
            public void requestFailed(String peer, int piece) {
                parts.requests.requestFailed(peer, piece);
            }

            @Override
            public void stored(String peer, int piece, int length) {
                // Checked now or never as it arrives (held back from peers while a sample is compared).
                parts.arrivals.stored(piece);
                tally.fromPeer(peer, length);
                task.listener().bytesFromPeers(length);
                task.listener().pieceStored(piece);
                parts.stored.stored(piece, peer);
            }

            @Override
            public void pump(String peer) {
                Peer p = peers.get(peer);
                if (p != null) {
                    parts.exchange.pump(p);
                }
            }

            @Override
            public void pumpAll() {
                parts.exchange.pumpAll();
            }
        };
    }
}
