package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that lies: it holds a share, reads it from S3 like everyone, then serves junk for every piece under
 * the junk's true CRC32C and vouches for the junk with matching {@code DIGESTS}, so no per-piece check can tell.
 * The honest nodes catch it end to end (the object's ETag as a digest, or S3's checksum; a spot check against S3
 * when there is neither), ban it, read its pieces again from S3, and publish the exact object.
 */
@RealS3
class ClusterIntegrityIT {

    @TempDir
    Path dir;

    @Test
    void aMemberServingJunkUnderConsistentDigestsIsCaughtEndToEndAndBothHonestNodesPublishTheObject(S3Fixture s3)
            throws Exception {
        // Single-part: the ETag is the object's MD5 (and LocalStack adds a CRC32 checksum).
        StoredObject object = s3.putRandom(s3.key("object.bin"), (3L << 20) + 777, 31);
        List<CompletedFetch> results = assertHonestNodesWinAgainstALyingMember(s3, object);
        // The whole file failed its MD5; the guilty peer was found by one piece per vouching peer, so only the
        // pieces taken on its word were read again, not every piece taken from peers (which made it 1.0 x each).
        long fromS3 = results.stream().mapToLong(CompletedFetch::bytesFromS3).sum();
        assertThat(fromS3).as("S3 bytes of both honest nodes").isLessThan(2 * object.size());
    }

    @Test
    void aMemberThatCorruptsOnePieceIsCaughtEvenWhenTheSampleOfOnePiecePerPeerMissesIt(S3Fixture s3) throws Exception {
        // One junk piece among the dozen it vouches for: the sample that looks for the guilty peer first
        // usually misses it, and the node falls back to reading every piece taken from peers again.
        StoredObject object = s3.putRandom(s3.key("one-bad.bin"), (3L << 20) + 777, 33);
        assertHonestNodesWinAgainstALyingMember(s3, object, LyingServing.corruptingOwnPieces(1));
    }

    @Test
    void aMemberServingJunkOnAMultipartObjectIsCaughtByItsEtagOrASpotCheck(S3Fixture s3) throws Exception {
        // Multipart: the ETag is the MD5 of the part MD5s, checkable once the part sizes are known (LocalStack);
        // S3Proxy tells no part sizes and has no checksums, so nothing S3 says binds the bytes: the spot check,
        // whose 2 % (shared by 3 members) buys each node one whole 64 KiB piece per vouching peer at 24 MiB.
        StoredObject object = s3.putRandom(s3.key("multipart.bin"), S3Fixture.MULTIPART_THRESHOLD + (8L << 20) + 5, 32);
        assertHonestNodesWinAgainstALyingMember(s3, object);
    }

    private List<CompletedFetch> assertHonestNodesWinAgainstALyingMember(S3Fixture s3, StoredObject object)
            throws Exception {
        return assertHonestNodesWinAgainstALyingMember(s3, object, LyingServing.corruptingOwnPieces());
    }

    private List<CompletedFetch> assertHonestNodesWinAgainstALyingMember(S3Fixture s3, StoredObject object,
            PieceServing lies) throws Exception {
        try (Swarm swarm = Swarm.withExtraMembers(s3, dir, Strategy.OVERLAP, 2, 1)) {
            int liarPort = swarm.ports.get(2);
            String liar = "127.0.0.1:" + liarPort;
            String registry = "static:" + swarm.ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
            try (EngineNode member = EngineNode.start(s3, dir.resolve("liar"), registry, "liar", liarPort, 3, Strategy.OVERLAP, object,
                    lies,
                    BanListener.NONE)) {
                swarm.start(object);
                List<CompletedFetch> results = swarm.awaitAll(object, List.of());
                for (CompletedFetch r : results) {
                    assertThat(r.bannedPeers()).as("peers banned by a node").containsExactly(liar);
                    assertThat(r.piecesRepaired()).as("pieces repaired by a node").isPositive();
                }
                return results;
            }
        }
    }
}
