package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Every kind of whole-object digest, fed its segments out of order, gives the value S3 states. */
class IncrementalDigestTest {

    private static final byte[] DATA = random(300_007);
    private static final PieceLayout LAYOUT = new PieceLayout(DATA.length, 65_536);

    @Test
    void fullObjectChecksumsOfEveryAlgorithm() {
        for (String alg : List.of("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")) {
            ObjectChecksum c = ObjectChecksum.fullObject(alg, base64(digest(alg, DATA, 0, DATA.length)));
            IncrementalDigest d = IncrementalDigest.of(c, LAYOUT);
            feedOutOfOrder(d, new Random(alg.hashCode()));
            assertThat(d.value()).as(alg).isEqualTo(c.base64Value());
            assertThat(d.matches()).isTrue();
        }
    }

    @Test
    void aFullObjectCrc32cNeedsNoBytesOnlyThePiecesRecordedCrcs() {
        ObjectChecksum c = ObjectChecksum.fullObject("CRC32C", base64(digest("CRC32C", DATA, 0, DATA.length)));
        IncrementalDigest d = IncrementalDigest.of(c, LAYOUT);
        for (int s = 0; s < d.segmentCount(); s++) {
            assertThat(d.needsBytes(s)).isFalse();
        }
        List<Integer> pieces = shuffled(LAYOUT.pieceCount(), new Random(3));
        for (int p : pieces) {
            assertThat(d.isComplete()).isFalse();
            d.pieceCompleted(p, crc32c(p));
        }
        assertThat(d.value()).isEqualTo(c.base64Value());
    }

    @Test
    void compositeChecksumsWhetherOrNotPartsAlignWithPieces() {
        for (List<Long> parts : List.of(List.of(131_072L, 131_072L, 37_863L), List.of(100_000L, 100_000L, 100_007L))) {
            for (String alg : List.of("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")) {
                ObjectChecksum c = new ObjectChecksum(alg, composite(alg, parts, false), false, parts);
                IncrementalDigest d = IncrementalDigest.of(c, LAYOUT);
                feedOutOfOrder(d, new Random(parts.hashCode() + alg.hashCode()));
                assertThat(d.value()).as(alg + " " + parts).isEqualTo(c.base64Value());
            }
        }
    }

    @Test
    void theEtagsMd5AndAMultipartEtag() {
        String md5 = HexFormat.of().formatHex(digest("MD5", DATA, 0, DATA.length));
        IncrementalDigest single = IncrementalDigest.of(ObjectChecksum.fullObject("MD5", md5), LAYOUT);
        feedOutOfOrder(single, new Random(1));
        assertThat(single.value()).isEqualTo(md5);

        List<Long> parts = List.of(131_072L, 131_072L, 37_863L);
        String eTag = composite("MD5", parts, true);
        IncrementalDigest multipart = IncrementalDigest.of(new ObjectChecksum("MD5", eTag, false, parts), LAYOUT);
        assertThat(multipart.segmentCount()).as("one segment per part, hashed in order each").isEqualTo(3);
        feedOutOfOrder(multipart, new Random(2));
        assertThat(multipart.value()).isEqualTo(eTag).endsWith("-3");
    }

    @Test
    void aSegmentStartedOverForgetsWhatItWasFed() {
        String sha = base64(digest("SHA256", DATA, 0, DATA.length));
        IncrementalDigest d = IncrementalDigest.of(ObjectChecksum.fullObject("SHA256", sha), LAYOUT);
        d.update(0, ByteBuffer.wrap(new byte[1000]));
        d.restart(0);
        d.update(0, ByteBuffer.wrap(DATA));
        assertThat(d.value()).isEqualTo(sha);

        String crc = base64(digest("CRC32C", DATA, 0, DATA.length));
        IncrementalDigest combined = IncrementalDigest.of(ObjectChecksum.fullObject("CRC32C", crc), LAYOUT);
        feedOutOfOrder(combined, new Random(4));
        combined.pieceForgotten(2);
        assertThat(combined.isComplete()).isFalse();
        combined.pieceCompleted(2, crc32c(2));
        assertThat(combined.value()).isEqualTo(crc);
    }

    @Test
    void segmentsOverlappingARangeAreFound() {
        IncrementalDigest d = IncrementalDigest.of(new ObjectChecksum("SHA256", "x-3", false,
                List.of(100_000L, 100_000L, 100_007L)), LAYOUT);
        assertThat(d.segmentsOverlapping(0, 65_536)).containsExactly(0, 1);
        assertThat(d.segmentsOverlapping(65_536, 131_072)).containsExactly(0, 2);
        assertThat(d.segmentsOverlapping(196_608, 262_144)).containsExactly(1, 3);
        assertThat(d.segmentsOverlapping(100_000, 200_000)).containsExactly(1, 2);
    }

    /** Feeds every segment, in a random order of segments, each in random-sized chunks in order. */
    static void feedOutOfOrder(IncrementalDigest d, Random random) {
        for (int p : shuffled(LAYOUT.pieceCount(), random)) {
            d.pieceCompleted(p, crc32c(p));
        }
        for (int s : shuffled(d.segmentCount(), random)) {
            if (!d.needsBytes(s)) {
                continue;
            }
            int at = (int) d.start(s);
            while (at < d.end(s)) {
                int n = Math.min((int) d.end(s) - at, 1 + random.nextInt(40_000));
                d.update(s, ByteBuffer.wrap(DATA, at, n));
                at += n;
            }
        }
    }

    static String composite(String alg, List<Long> parts, boolean hex) {
        return composite(alg, DATA, parts, hex);
    }

    /**
     * A composite checksum (or multipart ETag) of {@code data} cut in {@code parts}: the digest of the parts'
     * digests, hex or base64, then {@code -} and the part count.
     */
    static String composite(String alg, byte[] data, List<Long> parts, boolean hex) {
        ByteArrayOutputStream cat = new ByteArrayOutputStream();
        int at = 0;
        for (long p : parts) {
            cat.writeBytes(digest(alg, data, at, (int) p));
            at += (int) p;
        }
        byte[] whole = digest(alg, cat.toByteArray(), 0, cat.size());
        return (hex ? hex(whole) : base64(whole)) + "-" + parts.size();
    }

    static byte[] digest(String alg, byte[] data, int off, int len) {
        ObjectDigest d = ObjectDigest.of(alg);
        d.update(ByteBuffer.wrap(data, off, len));
        return d.finish();
    }

    static int crc32c(int piece) {
        CRC32C c = new CRC32C();
        c.update(DATA, (int) LAYOUT.offset(piece), LAYOUT.length(piece));
        return (int) c.getValue();
    }

    static String base64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    static List<Integer> shuffled(int n, Random random) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        Collections.shuffle(l, random);
        return l;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** {@code n} pseudo-random bytes, seeded by {@code n}. */
    static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
