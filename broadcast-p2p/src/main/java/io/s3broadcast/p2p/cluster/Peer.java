package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.spi.Bitfield;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/** What this node knows of one connected peer. On the run's loop only. */
final class Peer {
    final String id;
    /** The connection: a {@link PeerHandler}, or a fake in unit tests. */
    final PeerLink link;
    boolean peerChoking = true;
    /** The peer has said {@code CHOKE} or {@code UNCHOKE}: until then this node may ask it once before an unchoke. */
    boolean chokeHeard;
    /** This node asked the peer for pieces before it said {@code UNCHOKE} ({@link PieceExchange#pump}). */
    boolean askedBeforeUnchoke;
    boolean amInterested;
    boolean peerInterested;
    boolean done;
    /** The peer said {@code GOODBYE(NORMAL)}: it leaves the run and is not dialled again. */
    boolean left;
    /** Last {@code WORKS_LEFT}, or -1 before the first. */
    int worksLeft = -1;
    /** Pieces requested from this peer and not answered: a {@code PIECE} for any other is dropped unread. */
    final BitSet asked = new BitSet();
    /** When each piece in {@link #asked} was requested (ticker nanos): unanswered too long, it goes elsewhere. */
    final Map<Integer, Long> askedAt = new HashMap<>();
    /** What the peer can have: its bitfield and HAVEs (all, after a checked DONE). */
    final Bitfield has;
    boolean bitfieldReceived;
    int requestTimeouts;
    /**
     * The connection ends for being slow, not lying: this node dropped the peer for requests it left unanswered, or
     * the peer dropped this node so ({@code GOODBYE(MISBEHAVIOUR)}). Its pieces go on counting for a while
     * ({@link DroppedPeers}).
     */
    boolean droppedSlow;

    Peer(String id, PeerLink link, int pieceCount) {
        this.id = id;
        this.link = link;
        this.has = new Bitfield(pieceCount);
    }

    /** Sends {@code msg} to peer {@code id} of {@code peers}; false when it is not connected. */
    static boolean send(Map<String, Peer> peers, String id, PeerMessage msg) {
        Peer p = peers.get(id);
        if (p == null) {
            return false;
        }
        p.link.send(msg);
        return true;
    }

    /** {@code piece} is no longer outstanding to this peer. */
    void unask(int piece) {
        asked.clear(piece);
        askedAt.remove(piece);
    }

    @Override
    public String toString() {
        return link instanceof PeerHandler ? link.toString() : "peer " + id;
    }
}
