package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.RelayedDigests;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Passing vouches on: to the other peers once in a bounded overlay, and to later peers at greeting. */
class DigestRelayTest {

    private final Map<String, Peer> peers = new TreeMap<>();
    private final AtomicBoolean bounded = new AtomicBoolean(true);
    private final DigestRelay relay = new DigestRelay(peers, bounded::get);

    private static Digests list(int first) {
        return new Digests(first, new byte[Digests.DIGEST_BYTES], new byte[Digests.MAC_BYTES]);
    }

    private FakeLink connect(String id) {
        Peer p = FakeLink.peer(id, 8);
        peers.put(id, p);
        return FakeLink.of(p);
    }

    @Test
    void aListGoesToEveryOtherPeerOnceButNotBackToItsSenderOrOrigin() {
        FakeLink a = connect("a");
        FakeLink b = connect("b");
        FakeLink c = connect("c");
        relay.taken("a", "a", list(0)); // a's own word, from a
        relay.taken("b", "a", list(0)); // the same list again, passed on by b
        assertThat(a.sent).isEmpty();
        assertThat(b.sent).containsExactly(new RelayedDigests("a", list(0)));
        assertThat(c.sent).containsExactly(new RelayedDigests("a", list(0)));
    }

    @Test
    void aLaterPeerHearsEveryListKeptButItsOwn() {
        relay.taken("x", "a", list(0));
        relay.taken("x", "d", list(2));
        FakeLink d = connect("d");
        relay.greet(d, "d");
        assertThat(d.sent).containsExactly(new RelayedDigests("a", list(0)));
        assertThat(relay.size()).isEqualTo(2);
    }

    @Test
    void inAFullMeshNothingIsPassedOnToConnectedPeersButAPeerThatConnectsLaterHearsTheListsKept() {
        bounded.set(false);
        FakeLink b = connect("b");
        relay.taken("a", "a", list(0));
        assertThat(b.sent).as("b hears a itself").isEmpty();
        // A node joining mid-run may never be connected to a: it hears a's list from this node.
        FakeLink late = connect("late");
        relay.greet(late, "late");
        assertThat(late.sent).containsExactly(new RelayedDigests("a", list(0)));
    }
}
