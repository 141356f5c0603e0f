package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A group larger than the overlay: 12 nodes each keeping 3 peers (accepting up to 5) fetch one object over real
 * sockets and a real S3 server, byte-exact on every node, reading it from S3 about once, never with more than 5
 * peers at once; and the survivors complete when two nodes die (their works fall to the orphan rule, which sees
 * peers only).
 */
@RealS3
class OverlayFetchIT {

    private static final int NODES = 12;
    private static final int OVERLAY = 3;
    private static final int ACCEPT = OVERLAY + 2;

    @TempDir
    Path dir;

    /** Counts each node's peers at once, and the most it had. */
    private static final class PeerCounts {
        final AtomicIntegerArray most = new AtomicIntegerArray(NODES);
        final List<Set<String>> now = java.util.stream.IntStream.range(0, NODES)
                .mapToObj(i -> (Set<String>) ConcurrentHashMap.<String>newKeySet()).toList();

        FetchListener listener(int i) {
            return new FetchListener() {
                @Override
                public void peerConnected(String nodeId) {
                    now.get(i).add(nodeId);
                    most.accumulateAndGet(i, now.get(i).size(), Math::max);
                }

                @Override
                public void peerDisconnected(String nodeId) {
                    now.get(i).remove(nodeId);
                }
            };
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"OVERLAP", "STEAL"})
    void everyNodeGetsTheObjectThroughABoundedOverlay(Strategy strategy, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (4L << 20) + 12_345, 31);
        PeerCounts counts = new PeerCounts();
        try (Swarm swarm = Swarm.withOverlay(s3, dir, strategy, NODES, OVERLAY, counts::listener).start(object)) {
            List<CompletedFetch> results = swarm.awaitAll(object, List.of());
            long fromS3 = Swarm.bytesFromS3(results);
            assertTrue(fromS3 <= object.size() * 1.05, strategy + " read " + fromS3 + " bytes from S3 for an object of "
                    + object.size());
            for (int i = 0; i < NODES; i++) {
                int most = counts.most.get(i);
                assertTrue(most >= 1 && most <= ACCEPT, "node " + i + " had " + most + " peers at most");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"OVERLAP", "STEAL"})
    void survivorsCompleteWhenTwoNodesDie(Strategy strategy, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (8L << 20) + 4321, 32);
        int pieces = (int) ((object.size() + Swarm.PIECE_SIZE - 1) / Swarm.PIECE_SIZE);
        AtomicReferenceArray<FetchHandle> handles = new AtomicReferenceArray<>(NODES);
        // Node 11 dies after its first piece from S3 (phase 1), node 10 once it holds 60% of the object.
        try (Swarm swarm = Swarm.withOverlay(s3, dir, strategy, NODES, OVERLAY, i -> i < 10 ? null
                : new FetchListener() {
                    @Override
                    public void bytesTransferred(FetchProgress progress) {
                        int threshold = i == 11 ? 1 : pieces * 6 / 10;
                        FetchHandle h = handles.get(i);
                        if (progress.completedPieces() >= threshold && h != null) {
                            h.cancel();
                        }
                    }
                })) {
            swarm.start(object);
            for (int i = 0; i < NODES; i++) {
                handles.set(i, swarm.handles.get(i));
            }
            List<CompletedFetch> results = swarm.awaitAll(object, List.of(10, 11));
            assertEquals(NODES - 2, results.size());
            for (int killed : List.of(10, 11)) {
                assertThrows(CancellationException.class,
                        () -> swarm.handles.get(killed).completionFuture().get(30, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * Two parts of a bounded overlay, each node with its peers inside its part, find each other ({@link Stranded}):
     * three nodes keeping two peers each connect among themselves before the other three start, and those connect
     * among themselves too ({@link #cyclicParts}). Each part reads its own half from S3, finds nothing more at its
     * peers, and reaches out rather than read the other half again through the orphan rule (the flake of {@link
     * #everyNodeGetsTheObjectThroughABoundedOverlay}, session 48: 2.0 S).
     */
    @Test
    void twoPartsOfABoundedOverlayWhoseNodesHaveTheirPeersFindEachOther(S3Fixture s3) throws Exception {
        int nodes = 6;
        int part = 3;
        StoredObject object = s3.putRandom(s3.key("parts.bin"), (2L << 20) + 777, 33);
        List<Integer> ports = cyclicParts();
        List<String> ids = ports.stream().map(OverlayFetchIT::id).toList();
        String registry = "static:" + String.join(",", ids);
        AtomicLong fromS3 = new AtomicLong();
        CountDownLatch firstPartConnected = new CountDownLatch(part);
        List<EngineNode.Prepared> prepared = new ArrayList<>();
        List<EngineNode> started = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                prepared.add(EngineNode.prepare(s3, dir.resolve("node-" + i), object));
            }
            for (int i = 0; i < nodes; i++) {
                if (i == part) {
                    assertTrue(firstPartConnected.await(30, TimeUnit.SECONDS), "the first part did not connect");
                }
                Set<String> others = i < part ? Set.copyOf(ids.subList(0, part)) : Set.of();
                started.add(prepared.get(i).start(registry, "node-" + i, ports.get(i), nodes, 2, Strategy.OVERLAP,
                        PieceServing.HONEST, (node, peer) -> { }, listener(ids.get(i), others, firstPartConnected,
                                fromS3)));
            }
            for (EngineNode n : started) {
                ClusterRun.Outcome outcome = n.run.completion().get(60, TimeUnit.SECONDS);
                assertTrue(outcome.peers() >= 1, outcome.toString());
                assertEquals(object.sha256(), Swarm.sha256(n.store.tempFile()));
            }
            assertTrue(fromS3.get() <= object.size() * 1.05, "read " + fromS3.get() + " bytes from S3 for an object of "
                    + object.size() + ": the parts did not find each other");
        } finally {
            for (EngineNode n : started) {
                n.close();
            }
            for (EngineNode.Prepared p : prepared.subList(started.size(), prepared.size())) {
                p.store().close();
                p.source().close();
            }
        }
    }

    /**
     * Six free ports, in two parts of three in which each node dials one other ({@link
     * DialPairs}) and is dialled by the third: each part's nodes have their two peers at once, so none is short of
     * peers for long enough to dial again a member of the other part that refused it (which would join the parts
     * without the rule under test).
     */
    private static List<Integer> cyclicParts() throws java.io.IOException {
        while (true) {
            List<Integer> ports = new ArrayList<>(FreePorts.loopback(6));
            Collections.shuffle(ports);
            if (cyclic(ports.subList(0, 3)) && cyclic(ports.subList(3, 6))) {
                return ports;
            }
        }
    }

    private static boolean cyclic(List<Integer> t) {
        boolean ab = DialPairs.dials(id(t.get(0)), id(t.get(1)));
        return DialPairs.dials(id(t.get(1)), id(t.get(2))) == ab && DialPairs.dials(id(t.get(2)), id(t.get(0))) == ab;
    }

    /** The node id of the node listening on {@code port} (a static registry's id: its address). */
    private static String id(int port) {
        return "127.0.0.1:" + port;
    }

    /**
     * Counts the bytes a node reads from S3; counts {@code connected} down once the node has every one of {@code
     * others} (but itself) as a peer at once.
     */
    private static SourceListener listener(String self, Set<String> others, CountDownLatch connected,
            AtomicLong fromS3) {
        Set<String> peers = ConcurrentHashMap.newKeySet();
        Set<String> wanted = others.stream().filter(id -> !id.equals(self)).collect(Collectors.toSet());
        return new SourceListener() {
            private volatile boolean counted;

            @Override
            public void bytesReceived(long bytes) {
                fromS3.addAndGet(bytes);
            }

            @Override
            public void peerConnected(String nodeId) {
                peers.add(nodeId);
                if (!wanted.isEmpty() && !counted && peers.containsAll(wanted)) {
                    counted = true;
                    connected.countDown();
                }
            }

            @Override
            public void peerDisconnected(String nodeId) {
                peers.remove(nodeId);
            }
        };
    }
}
