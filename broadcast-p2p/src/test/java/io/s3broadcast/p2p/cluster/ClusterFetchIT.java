package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
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
}
