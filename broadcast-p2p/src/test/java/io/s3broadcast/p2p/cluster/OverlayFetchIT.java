package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
}
