package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cluster fetches that go wrong: a peer that corrupts pieces, nodes that die; and the ZooKeeper registry. */
@RealS3
class ClusterFaultsIT {

    @TempDir
    Path dir;

    @Test
    void aPeerSendingCorruptPiecesIsBannedAndNoFileHasAWrongByte(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (2L << 20) + 999, 21);
        Set<String> bans = ConcurrentHashMap.newKeySet();
        List<Integer> ports = FreePorts.loopback(3);
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        String liar = "127.0.0.1:" + ports.get(2);
        List<EngineNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                // The third node's pieces carry a flipped byte under the true CRC32C, as a faulty NIC would send them.
                nodes.add(EngineNode.start(s3, dir.resolve("node-" + i), registry, "node-" + i, ports.get(i), 3,
                        Strategy.NON_STEAL, object, i == 2 ? LyingServing.corruptingInTransit() : PieceServing.HONEST,
                        (node, peer) -> bans.add(node + " banned " + peer)));
            }
            for (int i = 0; i < 2; i++) {
                nodes.get(i).run.completion().get(120, TimeUnit.SECONDS);
                assertEquals(object.sha256(), Swarm.sha256(nodes.get(i).store.tempFile()), "SHA-256 on node " + i);
            }
            // Banned by one honest node at least: one that caught the liar and repaired first may serve the other
            // the liar's pieces before it asks the liar. Nobody else is banned.
            assertFalse(bans.isEmpty(), "nobody banned the liar");
            assertTrue(Set.of("127.0.0.1:" + ports.get(0) + " banned " + liar,
                    "127.0.0.1:" + ports.get(1) + " banned " + liar).containsAll(bans), "bans: " + bans);
        } finally {
            for (EngineNode n : nodes) {
                n.close();
            }
        }
    }

    @Test
    void survivorsCompleteWhenOneNodeDiesInPhaseOneAndAnotherInPhaseTwo(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (16L << 20) + 4321, 22);
        int n = 8;
        int pieces = (int) ((object.size() + Swarm.PIECE_SIZE - 1) / Swarm.PIECE_SIZE);
        AtomicReferenceArray<FetchHandle> handles = new AtomicReferenceArray<>(n);
        // Node 7 dies after its first piece from S3 (phase 1); node 6 once it holds 70% of the object, which
        // with STEAL is phase 2 (it starts when every node's work list is empty).
        try (Swarm swarm = Swarm.of(s3, dir, Strategy.STEAL, n, null, i -> i < 6 ? null : new FetchListener() {
            @Override
            public void bytesTransferred(FetchProgress progress) {
                int threshold = i == 7 ? 1 : pieces * 7 / 10;
                FetchHandle h = handles.get(i);
                if (progress.completedPieces() >= threshold && h != null) {
                    h.cancel();
                }
            }
        })) {
            swarm.start(object);
            for (int i = 0; i < n; i++) {
                handles.set(i, swarm.handles.get(i));
            }
            List<CompletedFetch> results = swarm.awaitAll(object, List.of(6, 7));
            assertEquals(6, results.size());
            for (int killed : List.of(6, 7)) {
                assertThrows(CancellationException.class,
                        () -> swarm.handles.get(killed).completionFuture().get(30, TimeUnit.SECONDS));
                assertFalse(swarm.dirs.get(killed).resolve("object.bin").toFile().exists());
            }
        }
    }

    @Test
    void zooKeeperRegistry(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (4L << 20) + 77, 23);
        try (TestingServer zk = new TestingServer(true);
                Swarm swarm = Swarm.of(s3, dir, Strategy.OVERLAP, 3, "zk://" + zk.getConnectString() + "/s3b-it", null)) {
            swarm.start(object);
            List<CompletedFetch> results = swarm.awaitAll(object, List.of());
            assertTrue(Swarm.bytesFromS3(results) <= object.size() * 1.05, "read " + Swarm.bytesFromS3(results));
            assertTrue(results.stream().allMatch(r -> r.bytesFromPeers() > 0), "every node pulled from peers: " + results);
        }
    }

    @Test
    void aLateJoinerTakesNoShareButStealsAndPulls(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("object.bin"), (32L << 20) + 5, 24);
        CompletableFuture<Void> firstPiece = new CompletableFuture<>();
        try (TestingServer zk = new TestingServer(true)) {
            String registry = "zk://" + zk.getConnectString() + "/s3b-it";
            try (Swarm early = Swarm.of(s3, dir.resolve("early"), Strategy.OVERLAP, 3, registry, i -> i > 0 ? null
                    : new FetchListener() {
                        @Override
                        public void bytesTransferred(FetchProgress progress) {
                            firstPiece.complete(null);
                        }
                    });
                    Swarm late = Swarm.of(s3, dir.resolve("late"), Strategy.OVERLAP, 1, registry, null, "late-")) {
                early.start(object);
                firstPiece.get(60, TimeUnit.SECONDS);
                late.start(object); // expects 1 node and finds 3 already there: it joins late
                List<CompletedFetch> joiner = late.awaitAll(object, List.of());
                List<CompletedFetch> results = early.awaitAll(object, List.of());
                CompletedFetch j = joiner.get(0);
                assertTrue(j.bytesFromPeers() > 0, "the late joiner pulled from peers: " + j);
                // ... and, the object having no MD5 ETag (multipart), the spot check of peers' pieces (at most 2 %).
                assertTrue(j.bytesFromS3() <= (long) j.piecesStolen() * Swarm.PIECE_SIZE + (long) (object.size() * 0.02),
                        "the late joiner read from S3 only works it stole and its spot check: " + j);
                long fromS3 = Swarm.bytesFromS3(results) + j.bytesFromS3();
                assertTrue(fromS3 <= object.size() * 1.05, "read " + fromS3);
            }
        }
    }
}
