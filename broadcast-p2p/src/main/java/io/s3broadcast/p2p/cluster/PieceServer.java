package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.spi.PieceStore;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers peers' {@code REQUEST}s on each connection's own loop: the piece, zero-copy from the store through the
 * injected {@link PieceServing}, or a {@code REJECT} when the run is closing, the peer is banned or choked, the
 * piece is not held or is under a check from S3, the peer has more requests outstanding than a well-behaved peer
 * keeps, or it is over the per-peer serve rate. Reads only thread-safe state.
 *
 * <p>Accepted requests wait in the connection's queue and go out one piece at a time: the next piece is written
 * when the one before is in the socket, not all of them as they arrive. Whatever this node writes to the peer
 * meanwhile ({@code REQUEST}s for pieces it wants, {@code HAVE}s, {@code CHOKE}) then waits behind one piece
 * and the socket's buffer, not behind every piece the peer asked for: with both ends of a connection uploading,
 * requests that queued behind the pieces going the other way reached the peer 0.3 s late (median; 0.8 s at the
 * 90th percentile) and the link idled while they travelled (docs/bench.md, "Where piece exchange loses link
 * time"). A queued request is checked again when its turn comes (rejected if the peer is choked by then), and a
 * {@code CANCEL} takes it out of the queue with a {@code REJECT}. Each piece passes the run's {@link UploadPacer} on
 * its way: while the pacer holds it back, the connection's next piece waits on its loop, the messages do not.
 *
 * <p>A request from a peer this node chokes is decided once more after the run's loop has handled the messages
 * that came before it: a peer sends its first requests right behind its {@code INTERESTED} ({@link PieceExchange}),
 * which unchokes it at once when a slot is free ({@link ChokeDriver}), and the {@code INTERESTED} waits in the run's
 * queue while a request is decided here on the connection's loop. Only then is it rejected if the peer is still
 * choked. At most {@code maxRequestsPerPeer} wait so per peer; more are rejected at once.
 */
final class PieceServer {

    private static final Logger LOG = LoggerFactory.getLogger(PieceServer.class);
    /** A piece write that took this long is logged at DEBUG (a connection starved on a shared link). */
    static final long SLOW_WRITE_NANOS = 5_000_000_000L;
    /**
     * A request that waited this long in its connection's queue before its piece was written is logged at DEBUG: a
     * third of the default request timeout, so the log says where an answer that came too late spent its time.
     */
    static final long SLOW_QUEUE_NANOS = 10_000_000_000L;

    /** An accepted request waiting for its turn: the piece, and when it was queued (the ticker's time). */
    record Queued(int piece, long queuedAt) {
    }

    private final PieceStore store;
    private final PieceServing serving;
    private final ChokeScheduler choke;
    private final Predicate<String> banned;
    private final Set<Integer> quarantine;
    private final Set<String> exchangedWith;
    private final int maxRequestsPerPeer;
    private final BooleanSupplier closing;
    private final Ticker ticker;
    private final Executor runLoop;
    private final UploadPacer pacer;

    /**
     * @param banned peers not served (thread-safe)
     * @param quarantine pieces not served: stored but under a check from S3 (thread-safe)
     * @param exchangedWith collects the peers served a piece (thread-safe)
     * @param closing whether the run is closing (thread-safe)
     * @param ticker the clock of the connections' send buffer sizing ({@link SendBuffer})
     * @param runLoop the run's loop, where the peers' other messages are handled in order
     * @param pacer the gate each piece passes on its way into a socket (thread-safe)
     */
    PieceServer(PieceStore store, PieceServing serving, ChokeScheduler choke, Predicate<String> banned,
            Set<Integer> quarantine, Set<String> exchangedWith, int maxRequestsPerPeer, BooleanSupplier closing,
            Ticker ticker, Executor runLoop, UploadPacer pacer) {
        this.store = store;
        this.serving = serving;
        this.choke = choke;
        this.banned = banned;
        this.quarantine = quarantine;
        this.exchangedWith = exchangedWith;
        this.maxRequestsPerPeer = maxRequestsPerPeer;
        this.closing = closing;
        this.ticker = ticker;
        this.runLoop = runLoop;
        this.pacer = pacer;
    }

    /** Serves {@code piece} to {@code h}'s peer, on the connection's loop. */
    void serve(PeerHandler h, int piece) {
        decide(h, piece, true);
    }

    /**
     * Serves {@code piece} to {@code h}'s peer or rejects it, as the run stands now; a request refused because the
     * peer is choked is first, if {@code mayDefer}, decided again after the run's loop has handled the messages
     * before it.
     */
    private void decide(PeerHandler h, int piece, boolean mayDefer) {
        if (!mayGo(h.peerId, piece)) {
            if (!mayDefer || !deferred(h, piece)) {
                h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
            }
            return;
        }
        int length = store.layout().length(piece);
        if (h.serving >= maxRequestsPerPeer || !h.serveRate(length)) {
            // More outstanding than a well-behaved peer keeps, or over the per-peer serve rate: asked elsewhere.
            h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
            return;
        }
        h.serving++;
        h.queued.add(new Queued(piece, ticker.read()));
        writeQueued(h);
    }

    /**
     * Hands a choked peer's request to the run's loop and back, unless {@code maxRequestsPerPeer} of its requests wait
     * so already; false if it was not deferred.
     */
    private boolean deferred(PeerHandler h, int piece) {
        if (h.peerId == null || h.deferred >= maxRequestsPerPeer || !choke.isChoking(h.peerId)) {
            return false;
        }
        h.deferred++;
        try {
            runLoop.execute(() -> backOnConnection(h, piece));
            return true;
        } catch (RuntimeException e) {
            h.deferred--; // the run's loop is shut down: decided now
            return false;
        }
    }

    /** On the run's loop: decides a deferred request back on the connection's loop (nothing if it is gone). */
    private void backOnConnection(PeerHandler h, int piece) {
        try {
            h.ctx.executor().execute(() -> {
                h.deferred--;
                decide(h, piece, false);
            });
        } catch (RuntimeException e) {
            LOG.debug("not answering request {} of {}: its connection's loop is shut down", piece, h.peerId);
        }
    }

    /**
     * Whether {@code piece} may go to peer {@code id} now: the run is not closing, the peer is known, not banned and
     * unchoked, and the piece is held and not under a check from S3. Asked when a request arrives and again when its
     * turn in the queue comes.
     */
    private boolean mayGo(String id, int piece) {
        return !closing.getAsBoolean() && id != null && !banned.test(id) && !choke.isChoking(id) && !store.isClosed()
                && store.hasPiece(piece) && !quarantine.contains(piece);
    }

    /**
     * {@code h}'s peer withdrew its request for {@code piece}: a request still queued is answered {@code REJECT}
     * (the piece is not sent); one whose piece is being written is left alone (the piece is on its way).
     */
    void cancel(PeerHandler h, int piece) {
        for (var it = h.queued.iterator(); it.hasNext(); ) {
            if (it.next().piece() == piece) {
                it.remove();
                h.serving--;
                h.ctx.writeAndFlush(new Reject(piece), h.ctx.voidPromise());
                return;
            }
        }
    }

    /**
     * Writes the next queued piece unless one is being written or waits for the pacer: the piece, or a {@code REJECT}
     * if it may no longer go.
     */
    private void writeQueued(PeerHandler h) {
        String id = h.peerId;
        boolean wrote = false;
        while (!h.writing && !h.paced && !h.queued.isEmpty()) {
            Queued next = h.queued.peek();
            int piece = next.piece();
            if (!mayGo(id, piece)) {
                h.queued.poll();
                wrote = true;
                h.serving--;
                h.ctx.write(new Reject(piece), h.ctx.voidPromise());
                continue;
            }
            int length = store.layout().length(piece);
            long wait = pacer.delayNanos(length);
            if (wait > 0) {
                paceNext(h, wait);
                break;
            }
            h.queued.poll();
            wrote = true;
            long started = ticker.read();
            if (started - next.queuedAt() >= SLOW_QUEUE_NANOS && LOG.isDebugEnabled()) {
                LOG.debug("piece {} to {} waited {} ms in its queue; {} more queued, uploads paced at {} B/s", piece,
                        id, (started - next.queuedAt()) / 1_000_000, h.queued.size(), Math.round(pacer.rate()));
            }
            ChannelFuture f = serving.write(h.ctx, store, piece);
            if (f.isDone() && !f.isSuccess()) {
                h.serving--;
                h.ctx.write(new Reject(piece), h.ctx.voidPromise());
                continue;
            }
            h.writing = true;
            f.addListener(done -> {
                h.writing = false;
                long now = ticker.read();
                long nanos = now - started;
                if (nanos >= SLOW_WRITE_NANOS && LOG.isDebugEnabled()) {
                    LOG.debug("piece {} to {} took {} ms into the socket; {} more queued", piece, id, nanos / 1_000_000,
                            h.queued.size());
                }
                h.serving--;
                if (done.isSuccess()) {
                    pacer.sent(length);
                    choke.uploaded(id, length);
                    exchangedWith.add(id);
                    int grown = h.sendBuffer.written(length, now);
                    if (grown > 0) {
                        h.ctx.channel().config().setOption(ChannelOption.SO_SNDBUF, grown);
                    }
                    writeQueued(h);
                } else {
                    h.queued.clear(); // the write closed the channel: nothing more goes out
                    h.serving = 0;
                }
            });
        }
        if (wrote) {
            h.ctx.flush();
        }
    }

    /** The pacer holds {@code h}'s next piece back for {@code nanos}: asked again then, on the connection's loop. */
    private void paceNext(PeerHandler h, long nanos) {
        h.paced = true;
        try {
            h.ctx.executor().schedule(() -> {
                h.paced = false;
                writeQueued(h);
            }, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("not serving {} more: its connection's loop is shut down", h.peerId);
        }
    }
}
