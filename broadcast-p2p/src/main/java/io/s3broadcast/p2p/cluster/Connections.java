package io.s3broadcast.p2p.cluster;

import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Choke;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.RelayedDigests;
import io.s3broadcast.p2p.protocol.Done;
import io.s3broadcast.p2p.protocol.GiveWorkRequest;
import io.s3broadcast.p2p.protocol.GiveWorkResponse;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeException;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.Interested;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.NotInterested;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.Piece;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.p2p.protocol.Unchoke;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.SourceListener;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run's peers as their connections come and go; what each connection's {@link PeerHandler} tells the run
 * comes here. A connection whose handshake was accepted becomes a {@link Peer} unless refused (the run is closing,
 * the peer is banned, already connected, or this node has as many peers as it accepts, {@link AcceptBound}: {@link
 * ClusterConfig#acceptPeers()}, and in a bounded overlay {@code overlayPeers} for a member's first dial), and is greeted ({@link PeerGreeting}); its messages go to their handlers ({@link
 * MessageDispatch}), its {@code BITFIELD} first; when it closes, its requests go to other peers and the overlay
 * fills up again ({@link Dialer}). Requests are served on the
 * connection's own loop ({@link PieceServer}); everything else on the run's loop.
 */
final class Connections implements GroupRouter.Target {

    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);

    private final NodeRun run;
    private final RunParts c;
    private final PeerCluster cluster;
    private final SourceListener listener;
    private final Map<String, Peer> peers;
    private final int pieceCount;
    private final MessageDispatch dispatch;

    /** @param peers the run's connected peers, by id (this class adds and removes them) */
    Connections(NodeRun run, RunParts parts, PeerCluster cluster, ClusterTask task, Map<String, Peer> peers) {
        this.run = run;
        this.c = parts;
        this.cluster = cluster;
        this.listener = task.listener();
        this.peers = peers;
        this.pieceCount = task.store().layout().pieceCount();
        this.dispatch = dispatch(task);
    }

    /** Each message type to the component that handles it. */
    private MessageDispatch dispatch(ClusterTask task) {
        return new MessageDispatch()
                .on(MessageType.PIECE, Piece.class, c.receiver::arrived)
                .on(MessageType.BITFIELD, BitfieldMessage.class, (p, bits) -> {
                    c.exchange.bitfield(p, bits);
                    c.handBack.peerHas(bits.toBitfield());
                })
                .on(MessageType.HAVE, Have.class, (p, have) -> {
                    c.exchange.have(p, have);
                    c.handBack.peerHas(have.piece());
                })
                .on(MessageType.CHOKE, Choke.class, (p, m) -> c.exchange.choked(p))
                .on(MessageType.UNCHOKE, Unchoke.class, (p, m) -> c.exchange.unchoked(p))
                .on(MessageType.REJECT, Reject.class, c.exchange::rejected)
                .on(MessageType.INTERESTED, Interested.class, (p, m) -> c.chokeDriver.interested(p, true))
                .on(MessageType.NOT_INTERESTED, NotInterested.class, (p, m) -> c.chokeDriver.interested(p, false))
                .on(MessageType.DONE, Done.class, (p, m) -> c.claims.done(p))
                .on(MessageType.WORKS_LEFT, WorksLeft.class, c.claims::worksLeft)
                .on(MessageType.GIVE_WORK_REQUEST, GiveWorkRequest.class, (p, g) -> c.phase1.giveWorkRequested(p.id,
                        g.requestId(), GiveWorkResponse.maxWorks(p.link.maxFrameLength())))
                .on(MessageType.GIVE_WORK_RESPONSE, GiveWorkResponse.class, (p, g) -> {
                    if (!c.phase1.giveWorkAnswered(p.id, g.requestId(), g.works(), task.store()::hasPiece)) {
                        c.banned.misbehaved(p, "sent GIVE_WORK_RESPONSE " + g.requestId()
                                + " that this node did not ask for");
                    }
                })
                .on(MessageType.DIGESTS, Digests.class, (p, d) -> {
                    if (c.digests.received(p.id, d)) {
                        c.relay.taken(p.id, p.id, d);
                        c.exchange.pumpAll();
                    }
                })
                .on(MessageType.RELAYED_DIGESTS, RelayedDigests.class, (p, r) -> {
                    if (r.origin().equals(run.self())) {
                        return; // this node's own word, back
                    }
                    if (c.digests.relayed(p.id, r)) {
                        c.relay.taken(p.id, r.origin(), r.digests());
                        c.exchange.pumpAll();
                    }
                })
                .on(MessageType.GOODBYE, Goodbye.class, (p, g) -> {
                    LOG.debug("{}: {} says goodbye: {} {}", run.self(), p.id, g.reason(), g.detail());
                    if (g.reason() == Goodbye.Reason.PROTOCOL_ERROR || g.reason() == Goodbye.Reason.BAD_PIECE) {
                        c.banned.add(p.id); // it banned us (or we broke the protocol): neither side wants this again
                    } else if (g.reason() == Goodbye.Reason.TOO_MANY_CONNECTIONS) {
                        c.dialer.refused(p.id); // it has its overlay: dial someone else
                    } else if (g.reason() == Goodbye.Reason.NORMAL) {
                        leftTheRun(p, g.detail());
                    } else if (g.reason() == Goodbye.Reason.MISBEHAVIOUR) {
                        p.droppedSlow = true; // it is alive: what it holds reaches this node's other peers
                        c.resting.droppedBy(p.id); // it refuses this node until its rest is over, but may dial
                    }
                });
    }

    /**
     * {@code p} said {@code GOODBYE(NORMAL)}: it leaves the run (done, or stopped before it was done), so it is no
     * member any more for this node, whatever the registry shows until its next poll: it is not dialled again, the
     * bounded overlay's orphan rule does not count it, and what it left unfinished falls to the orphan rule.
     */
    private void leftTheRun(Peer p, String detail) {
        p.left = true;
        NodeInfo node = c.membership.get(p.id);
        if (node != null) {
            c.membership.left(node);
        }
        if (!p.done) {
            LOG.info("{}: {} leaves the run before it is done ({})", run.self(), p.id, detail);
        }
    }

    /** Follows the registry's joins and leaves from now on (it first hears the current members). */
    void watch() {
        try {
            c.registry.watch(new MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    execute(() -> memberJoined(node));
                }

                @Override
                public void left(NodeInfo node) {
                    execute(() -> {
                        c.membership.left(node);
                        run.checkLingerEnd();
                    });
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("{}: cannot watch the registry for {}: {}", run.self(), run.group(), e.toString());
        }
    }

    /** {@code node} is a member: the overlay may dial it ({@link Dialer}). */
    void memberJoined(NodeInfo node) {
        if (!run.closing() && !node.nodeId().equals(run.self())
                && c.membership.joined(node, peers.containsKey(node.nodeId()))) {
            c.dialer.memberJoined(node);
            c.handBack.learned(node.nodeId());
        }
    }

    /** Runs {@code action} on the run's loop. */
    void execute(Runnable action) {
        run.execute(action);
    }

    /** The exchange handler of a new connection, dialled to {@code dialed} or (null) inbound. */
    PeerHandler handler(NodeInfo dialed) {
        return new PeerHandler(this, dialed, cluster.config().limits());
    }

    /** Called by the router on the channel's loop: installs this run's handlers on an inbound channel. */
    @Override
    public boolean adoptInbound(Channel ch) {
        if (run.closing()) {
            return false;
        }
        c.channels.adopt(ch, handler(null));
        return true;
    }

    /** {@code ch}'s peer proved the group secret: it no longer counts against the pending connections. */
    void authenticated(Channel ch) {
        cluster.pending().authenticated(ch);
    }

    /** The handshake of {@code h}'s connection failed; a failed proof of the secret is logged once per host. */
    void handshakeFailed(PeerHandler h, HandshakeException e) {
        c.channels.handshakeFailed(run.self(), h, e);
    }

    /** The handshake with {@code h}'s peer was accepted: it becomes a peer, unless refused, and is greeted. */
    void connected(PeerHandler h) {
        String id = h.peerId;
        ClusterConfig config = cluster.config();
        c.dialer.handshaken(h.dialed);
        if (run.closing()) {
            h.ctx.close();
        } else if (run.leaving()) {
            h.goodbye(Goodbye.Reason.NORMAL, "left");
        } else if (c.banned.contains(id)) {
            h.goodbye(c.banned.isLiar(id) ? Goodbye.Reason.BAD_PIECE : Goodbye.Reason.PROTOCOL_ERROR, "banned");
        } else if (c.resting.refuses(id)) {
            h.goodbye(Goodbye.Reason.TOO_MANY_CONNECTIONS, "resting after a connection dropped for slow answers");
        } else if (peers.containsKey(id)) {
            h.goodbye(Goodbye.Reason.DUPLICATE_CONNECTION, "already connected");
        } else if (!c.acceptBound.accepts(id, peers.size(), h.dialed != null)) {
            if (peers.size() >= config.limits().maxPeers()) {
                LOG.warn("{}: refusing {}: already {} peers, the most this node accepts (s3broadcast.maxPeers)",
                        run.self(), h, peers.size());
            } else {
                LOG.debug("{}: refusing {}: already {} peers, its overlay is full (s3broadcast.overlayPeers)",
                        run.self(), h, peers.size());
            }
            h.goodbye(Goodbye.Reason.TOO_MANY_CONNECTIONS, "this node has " + peers.size() + " peers already");
        } else {
            peers.put(id, new Peer(id, h, pieceCount));
            listener.peerConnected(id);
            boolean newcomer = !c.membership.isMember(id);
            if (newcomer) {
                // A peer the registry has not shown yet: a member that just joined. Look now, not at the next poll.
                c.registry.refresh();
            }
            c.membership.connected(id);
            c.dialer.connected(id);
            c.phase1.peersConnected(peers.size());
            c.choke.peerConnected(id);
            c.greeting.greet(h);
            c.relay.greet(h, id);
            h.flush();
            if (newcomer) {
                c.handBack.learned(id); // after the greeting: a WORKS_LEFT it may send must follow the BITFIELD
            }
            LOG.debug("{}: connected to {}", run.self(), h);
        }
    }

    /** {@code h}'s connection closed: its requests go to other peers. */
    void disconnected(PeerHandler h) {
        String id = h.peerId;
        if (id == null || peers.get(id) == null || peers.get(id).link != h) {
            c.dialer.connectionClosed(h.dialed);
            return;
        }
        Peer p = peers.remove(id);
        if (p.droppedSlow) {
            // counted only while it is a member (DroppedPeers.holds)
            c.dropped.dropped(id, p.has, c.resting.lastRestNanos(id));
        }
        double rate = c.choke.rate(id);
        c.requests.peerLeft(id);
        c.phase1.peerLeft(id);
        c.choke.peerLeft(id);
        if (run.closing()) {
            return; // finish() told the listener
        }
        listener.peerDisconnected(id);
        if (!p.done && !p.left && !c.dialer.refusedBy(id)) {
            LOG.info("{}: lost {} before it was done; its requests go elsewhere", run.self(), id);
        }
        // phase1.peerLeft abandoned a request outstanding to it; pump asks the scheduler again.
        c.exchange.pumpAll();
        c.phase1.pump();
        c.chokeDriver.rechokeIfSlotsFree();
        run.checkLingerEnd();
        c.dialer.peerLost(id, p.done, rate);
    }

    /** A message from {@code h}'s peer, to its handler ({@link MessageDispatch}); this method owns it. */
    void received(PeerHandler h, PeerMessage msg) {
        Peer p = h.peerId == null ? null : peers.get(h.peerId);
        if (p == null || p.link != h || run.closing()) {
            ReferenceCountUtil.release(msg);
        } else if (!p.bitfieldReceived && msg.type() != MessageType.BITFIELD && msg.type() != MessageType.GOODBYE) {
            c.banned.misbehaved(p, "sent " + msg.type() + " before its BITFIELD");
            ReferenceCountUtil.release(msg);
        } else if (!dispatch.dispatch(p, msg)) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Serves a request on the connection's own loop: zero-copy from the store, or a {@code REJECT}. */
    void serve(PeerHandler h, int piece) {
        c.server.serve(h, piece);
    }

    /** A {@code CANCEL}, on the connection's own loop: a request still queued is rejected. */
    void cancel(PeerHandler h, int piece) {
        c.server.cancel(h, piece);
    }
}
