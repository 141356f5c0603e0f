package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.RelayedDigests;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Passes vouches on in a bounded overlay, where most nodes are not this node's peers: a piece is accepted from a
 * peer only against a digest a member vouched for (docs/protocol.md, Integrity), and the member that read it from
 * S3 may be several hops away. Each {@code DIGESTS} list this node took (its MAC checked against its origin), from
 * the origin or passed on, goes unchanged to its other peers once ({@link RelayedDigests}), and to peers that
 * connect later. In a full mesh every node hears every origin itself: nothing is passed on, except to a peer that
 * connects later (a node joining mid-run), which hears every list kept. On the run's loop only.
 */
final class DigestRelay {

    private record Vouch(String origin, Digests digests) {
    }

    private final Map<String, Peer> peers;
    private final BooleanSupplier bounded;
    private final Set<String> seen = new HashSet<>();
    private final List<Vouch> kept = new ArrayList<>();

    /**
     * @param peers the run's connected peers, by id
     * @param bounded whether this node is connected to only some of the members
     */
    DigestRelay(Map<String, Peer> peers, BooleanSupplier bounded) {
        this.peers = peers;
        this.bounded = bounded;
    }

    /** This node took {@code origin}'s list {@code d}, from peer {@code from}: its other peers hear it (once). */
    void taken(String from, String origin, Digests d) {
        if (!seen.add(origin + '\0' + d.first() + '\0' + d.count())) {
            return;
        }
        Vouch v = new Vouch(origin, d);
        kept.add(v); // kept in a full mesh too: the group may grow past the overlay, and later peers hear them
        if (!bounded.getAsBoolean()) {
            return;
        }
        for (Peer p : peers.values()) {
            if (!p.id.equals(from) && send(p.link, p.id, v)) {
                p.link.flush();
            }
        }
    }

    /**
     * A new peer {@code id} hears every list kept so far (its own excepted), in a full mesh too: a node that joins
     * mid-run may never be connected to the origin of a piece (the origin left, or finished and stopped lingering
     * before it dialled the newcomer), and without a vouch it would read that piece from S3 again. At most one
     * 32-byte digest per piece and origin; nothing is kept yet when the group first connects. The caller flushes.
     */
    void greet(PeerLink link, String id) {
        for (Vouch v : kept) {
            send(link, id, v);
        }
    }

    /** Lists this node passes on (for tests and the log). */
    int size() {
        return kept.size();
    }

    private static boolean send(PeerLink link, String id, Vouch v) {
        if (id.equals(v.origin())
                || v.digests().count() > RelayedDigests.maxDigests(link.maxFrameLength(), v.origin())) {
            return false;
        }
        link.write(new RelayedDigests(v.origin(), v.digests()));
        return true;
    }
}
