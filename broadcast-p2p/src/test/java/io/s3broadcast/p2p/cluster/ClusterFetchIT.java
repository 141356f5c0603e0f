package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.spi.ClusterRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * N nodes in one JVM fetch one object with each cluster strategy over real sockets and a real S3 server:
 * every file is byte-identical to the object and the nodes together read it from S3 about once.
 */
@RealS3
class ClusterFetchIT {

    @TempDir
    Path dir;

    static Stream<Arguments> strategiesAndSizes() {
        return Stream.of(Strategy.NON_STEAL, Strategy.STEAL, Strategy.OVERLAP)
                .flatMap(s -> Stream.of(1, 2, 3, 8).map(n -> Arguments.of(s, n)));
    }

    @ParameterizedTest(name = "{0} on {1} nodes")
    @MethodSource("strategiesAndSizes")
    void everyNodeGetsTheObjectReadingItFromS3AboutOnce(Strategy strategy, int n, S3Fixture s3) throws Exception {
        // 4 MiB + 12345 bytes: 65 pieces of 64 KiB, the last one short.
        StoredObject object = s3.putRandom(s3.key("object.bin"), (4L << 20) + 12_345, 7);
        try (Swarm swarm = Swarm.of(s3, dir, strategy, n).start(object)) {
            List<CompletedFetch> results = swarm.awaitAll(object, List.of());
            long fromS3 = Swarm.bytesFromS3(results);
            assertTrue(fromS3 <= object.size() * 1.05, strategy + " on " + n + " nodes read " + fromS3
                    + " bytes from S3 for an object of " + object.size());
            for (CompletedFetch r : results) {
                assertTrue(r.bytesFromS3() + r.bytesFromPeers() >= object.size(), "every byte came from S3 or a peer: " + r);
            }
            int stolen = results.stream().mapToInt(CompletedFetch::piecesStolen).sum();
            assertTrue(stolen <= 65, "pieces fetched in stolen works are pieces of the object, counted once: " + stolen);
            if (strategy == Strategy.NON_STEAL) {
                assertTrue(stolen == 0, "non-steal never steals: " + stolen);
            }
        }
    }

    static Stream<Arguments> smallObjects() {
        return Stream.of(Strategy.NON_STEAL, Strategy.STEAL, Strategy.OVERLAP)
                .flatMap(s -> Stream.of(Arguments.of(s, 1_000L, 3), Arguments.of(s, 3L * Swarm.PIECE_SIZE - 7, 8)));
    }

    @ParameterizedTest(name = "{0}: {1} bytes on {2} nodes")
    @MethodSource("smallObjects")
    void objectsWithFewerPiecesThanNodes(Strategy strategy, long size, int n, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("small.bin"), size, 11);
        try (Swarm swarm = Swarm.of(s3, dir, strategy, n).start(object)) {
            List<CompletedFetch> results = swarm.awaitAll(object, List.of());
            assertTrue(Swarm.bytesFromS3(results) <= object.size() * 1.05, "read " + Swarm.bytesFromS3(results));
        }
    }

    /**
     * A member whose peer server is not up yet when the others dial it (its cluster is made on its first fetch), and
     * that dials nobody itself (both others are its diallers): the others complete from each other meanwhile, and
     * must keep dialling it while it is pending, complete or not, rather than leave it to wait out the connect grace
     * and read the piece again from S3 (a flake of {@link #objectsWithFewerPiecesThanNodes}, sessions 47-48).
     */
    @Test
    void aMemberThatComesLateIsDialledByNodesThatAreAlreadyDone(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("small.bin"), 1_000L, 12);
        List<Integer> ports = lateMemberPorts();
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        List<EngineNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                nodes.add(EngineNode.start(s3, dir.resolve("node-" + i), registry, "node-" + i, ports.get(i), 3,
                        Strategy.OVERLAP, object, PieceServing.HONEST, (node, peer) -> { }));
            }
            for (EngineNode n : nodes) {
                n.run.completion().get(60, TimeUnit.SECONDS);
            }
            EngineNode late = EngineNode.start(s3, dir.resolve("node-2"), registry, "node-2", ports.get(2), 3,
                    Strategy.OVERLAP, object, PieceServing.HONEST, (node, peer) -> { });
            nodes.add(late);
            ClusterRun.Outcome outcome = late.run.completion().get(60, TimeUnit.SECONDS);
            assertEquals(object.size(), outcome.bytesFromPeers(), "the late member read the piece from S3: " + outcome);
            assertEquals(object.sha256(), Swarm.sha256(late.store.tempFile()));
        } finally {
            for (EngineNode n : nodes) {
                n.close();
            }
        }
    }

    /**
     * Three free ports, the late member's last: both others dial it ({@link DialPairs}), so it dials nobody, and
     * its id is not the largest, so the one piece's share is not its own.
     */
    private static List<Integer> lateMemberPorts() throws java.io.IOException {
        while (true) {
            List<Integer> ports = FreePorts.loopback(3);
            int largest = ports.stream().max(java.util.Comparator.comparing(ClusterFetchIT::id)).orElseThrow();
            for (int late : ports) {
                List<Integer> others = ports.stream().filter(p -> p != late).toList();
                if (late != largest && others.stream().allMatch(p -> DialPairs.dials(id(p), id(late)))) {
                    return List.of(others.get(0), others.get(1), late);
                }
            }
        }
    }

    private static String id(int port) {
        return "127.0.0.1:" + port;
    }
}
