package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelFuture;
import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.spi.PieceStore;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Answers peers' {@code REQUEST}s on each connection's own loop: the piece, zero-copy from the store through the
 * injected {@link PieceServing}, or a {@code REJECT} when the run is closing, the peer is banned or choked, the
 * piece is not held or is under a check from S3, the peer has more requests outstanding than a well-behaved peer
 * keeps, or it is over the per-peer serve rate. Reads only thread-safe state.
 */
final class PieceServer {

    private final PieceStore store;
    private final PieceServing serving;
    private final ChokeScheduler choke;
    private final Predicate<String> banned;
    private final Set<Integer> quarantine;
    private final Set<String> exchangedWith;
    private final int maxRequestsPerPeer;
    private final BooleanSupplier closing;

    /**
     * @param banned peers not served (thread-safe)
     * @param quarantine pieces not served: stored but under a check from S3 (thread-safe)
     * @param exchangedWith collects the peers served a piece (thread-safe)
     * @param closing whether the run is closing (thread-safe)
     */
    PieceServer(PieceStore store, PieceServing serving, ChokeScheduler choke, Predicate<String> banned,
            Set<Integer> quarantine, Set<String> exchangedWith, int maxRequestsPerPeer, BooleanSupplier closing) {
        this.store = store;
        this.serving = serving;
        this.choke = choke;
        this.banned = banned;
        this.quarantine = quarantine;
        this.exchangedWith = exchangedWith;
        this.maxRequestsPerPeer = maxRequestsPerPeer;
        this.closing = closing;
    }

    /** Serves {@code piece} to {@code h}'s peer, on the connection's loop. */
    void serve(PeerHandler h, int piece) {
        String id = h.peerId;
        if (closing.getAsBoolean() || id == null || banned.test(id) || choke.isChoking(id) || store.isClosed()
                || !store.hasPiece(piece) || quarantine.contains(piece)) {
            h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
            return;
        }
        int length = store.layout().length(piece);
        if (h.serving >= maxRequestsPerPeer || !h.serveRate(length)) {
            // More outstanding than a well-behaved peer keeps, or over the per-peer serve rate: asked elsewhere.
            h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
            return;
        }
        h.serving++;
        ChannelFuture f = serving.write(h.ctx, store, piece);
        if (f.isDone() && !f.isSuccess()) {
            h.serving--;
            h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
            return;
        }
        h.ctx.flush();
        f.addListener(done -> {
            h.serving--;
            if (done.isSuccess()) {
                choke.uploaded(id, length);
                exchangedWith.add(id);
            }
        });
    }
}
