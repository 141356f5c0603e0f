package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectVerifierTest {

    @TempDir
    Path dir;

    @Test
    void crc64NvmeHasTheStandardCheckValue() {
        Crc64Nvme c = new Crc64Nvme();
        c.update("123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(Long.toHexString(c.getValue())).isEqualTo("ae8b14860a799888");
        // Byte-at-a-time and eight-at-a-time give the same value.
        byte[] data = new byte[1000];
        new Random(1).nextBytes(data);
        Crc64Nvme a = new Crc64Nvme();
        a.update(data, 0, data.length);
        Crc64Nvme b = new Crc64Nvme();
        for (byte x : data) {
            b.update(x);
        }
        assertThat(a.getValue()).isEqualTo(b.getValue());
    }

    @Test
    void fullObjectChecksumsOfEachAlgorithmMatch() throws Exception {
        byte[] data = random(300_001);
        for (String alg : List.of("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")) {
            ObjectDigest d = ObjectDigest.of(alg);
            d.update(ByteBuffer.wrap(data));
            String value = Base64.getEncoder().encodeToString(d.finish());
            try (PieceStore store = storeWith(data, 65_536)) {
                assertThat(ObjectVerifier.verify(store, info(data.length, ObjectChecksum.fullObject(alg, value))))
                        .as(alg).isTrue();
            }
        }
    }

    @Test
    void sha256MatchesTheJdk() throws Exception {
        byte[] data = random(1234);
        ObjectDigest d = ObjectDigest.of("SHA256");
        d.update(ByteBuffer.wrap(data));
        assertThat(d.finish()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @Test
    void compositeChecksumFollowsThePartBoundaries() throws Exception {
        byte[] data = random(250_000);
        long[] parts = {100_000, 100_000, 50_000};
        ObjectDigest whole = ObjectDigest.of("CRC32C");
        java.io.ByteArrayOutputStream cat = new java.io.ByteArrayOutputStream();
        int off = 0;
        for (long p : parts) {
            ObjectDigest d = ObjectDigest.of("CRC32C");
            d.update(ByteBuffer.wrap(data, off, (int) p));
            cat.writeBytes(d.finish());
            off += (int) p;
        }
        whole.update(ByteBuffer.wrap(cat.toByteArray()));
        String value = Base64.getEncoder().encodeToString(whole.finish()) + "-3";
        ObjectChecksum c = new ObjectChecksum("CRC32C", value, false, List.of(100_000L, 100_000L, 50_000L));
        try (PieceStore store = storeWith(data, 30_000)) {
            assertThat(ObjectVerifier.verify(store, info(data.length, c))).isTrue();
        }
        ObjectChecksum shifted = new ObjectChecksum("CRC32C", value, false, List.of(90_000L, 110_000L, 50_000L));
        try (PieceStore store = storeWith(data, 30_000)) {
            assertThatThrownBy(() -> ObjectVerifier.verify(store, info(data.length, shifted)))
                    .isInstanceOf(BroadcastException.ChecksumMismatch.class).hasMessageContaining("composite");
        }
    }

    @Test
    void wrongObjectChecksumIsCaught() throws Exception {
        byte[] data = random(10_000);
        try (PieceStore store = storeWith(data, 4096)) {
            ObjectChecksum wrong = ObjectChecksum.fullObject("CRC32C", "AAAAAA==");
            assertThatThrownBy(() -> ObjectVerifier.verify(store, info(data.length, wrong)))
                    .isInstanceOf(BroadcastException.ChecksumMismatch.class)
                    .hasMessageContaining("S3 says AAAAAA==").hasMessageContaining("s3://b/k");
        }
    }

    @Test
    void aPieceChangedOnDiskIsCaughtWhenItIsReadToHashIt() throws Exception {
        byte[] data = random(10_000);
        ObjectDigest d = ObjectDigest.of("SHA256");
        d.update(ByteBuffer.wrap(data));
        ObjectChecksum sha = ObjectChecksum.fullObject("SHA256", Base64.getEncoder().encodeToString(d.finish()));
        try (PieceStore store = storeWith(data, 4096)) {
            store.write(5000, ByteBuffer.wrap(new byte[] {(byte) (data[5000] + 1)}));
            assertThatThrownBy(() -> ObjectVerifier.verify(store, info(data.length, sha)))
                    .isInstanceOf(BroadcastException.ChecksumMismatch.class)
                    .hasMessageContaining("piece 1 (bytes 4096-8191)");
        }
    }

    @Test
    void withoutAnS3ChecksumOnlyPiecesAreChecked() throws Exception {
        byte[] data = random(10);
        try (PieceStore store = storeWith(data, 4)) {
            assertThat(ObjectVerifier.verify(store, info(data.length, null))).isFalse();
        }
        try (PieceStore store = storeWith(new byte[0], 4)) {
            assertThat(ObjectVerifier.verify(store, info(0, null))).isFalse();
        }
    }

    @Test
    void theEtagsMd5IsCheckedAndAMismatchIsReportedForRepairNotThrown() throws Exception {
        byte[] data = random(200_003);
        String md5 = java.util.HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        ObjectInfo right = new ObjectInfo("b", "k", data.length, "\"" + md5 + "\"", Optional.empty(), Optional.empty(),
                ObjectInfo.eTagDigest("\"" + md5 + "\"", false, List.of()));
        try (PieceStore store = storeWith(data, 65_536)) {
            assertThat(ObjectVerifier.verify(store, right, true)).isTrue();
            assertThat(ObjectVerifier.verify(store, right)).as("the flat tree does not check the ETag").isFalse();
            assertThat(ObjectVerifier.hasUnforgeableDigest(right)).isTrue();
        }
        data[100_000] ^= 1; // stored as it arrived (its CRC32C matches), but not the object S3 holds
        try (PieceStore store = storeWith(data, 65_536)) {
            assertThat(ObjectVerifier.check(store, right, true).wholeObjectMismatch()).contains("on disk has MD5")
                    .contains("but its ETag is \"" + md5 + "\"");
            assertThatThrownBy(() -> ObjectVerifier.verify(store, right, true))
                    .isInstanceOf(BroadcastException.ChecksumMismatch.class).hasMessageContaining("fetch again");
        }
    }

    @Test
    void aMultipartEtagIsTheMd5OfThePartMd5s() throws Exception {
        byte[] data = random(300_007);
        List<Long> parts = List.of(131_072L, 131_072L, 37_863L);
        ByteArrayOutputStream partMd5s = new ByteArrayOutputStream();
        int at = 0;
        for (long p : parts) {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(data, at, (int) p);
            partMd5s.writeBytes(md.digest());
            at += (int) p;
        }
        String eTag = "\"" + java.util.HexFormat.of().formatHex(MessageDigest.getInstance("MD5")
                .digest(partMd5s.toByteArray())) + "-3\"";
        ObjectInfo info = new ObjectInfo("b", "k", data.length, eTag, Optional.empty(), Optional.empty(),
                ObjectInfo.eTagDigest(eTag, false, parts));
        try (PieceStore store = storeWith(data, 65_536)) {
            assertThat(ObjectVerifier.check(store, info, true)).isEqualTo(new ObjectVerifier.Result(true, null));
        }
        ObjectInfo wrongParts = new ObjectInfo("b", "k", data.length, eTag, Optional.empty(), Optional.empty(),
                ObjectInfo.eTagDigest(eTag, false, List.of(100_000L, 100_000L, 100_007L)));
        try (PieceStore store = storeWith(data, 65_536)) {
            assertThat(ObjectVerifier.check(store, wrongParts, true).wholeObjectMismatch()).contains("MD5 of part MD5s");
        }
    }

    @Test
    void anEtagIsADigestOnlyInItsTwoFormsAndWithoutKmsOrCustomerKeys() {
        assertThat(ObjectInfo.eTagDigest("\"0123456789abcdef0123456789ABCDEF\"", false, List.of()))
                .contains(ObjectChecksum.fullObject("MD5", "0123456789abcdef0123456789abcdef"));
        assertThat(ObjectInfo.eTagParts("\"0123456789abcdef0123456789abcdef-3\"")).isEqualTo(3);
        assertThat(ObjectInfo.eTagDigest("\"0123456789abcdef0123456789abcdef-3\"", false, List.of())).isEmpty();
        assertThat(ObjectInfo.eTagDigest("\"0123456789abcdef0123456789abcdef-2\"", false, List.of(5L, 1L)))
                .contains(new ObjectChecksum("MD5", "0123456789abcdef0123456789abcdef-2", false, List.of(5L, 1L)));
        assertThat(ObjectInfo.eTagDigest("\"0123456789abcdef0123456789abcdef\"", true, List.of())).isEmpty();
        assertThat(ObjectInfo.eTagParts("etag")).isEqualTo(-1);
        assertThat(ObjectInfo.eTagDigest("etag", false, List.of())).isEmpty();
        assertThat(ObjectVerifier.hasUnforgeableDigest(info(1, ObjectChecksum.fullObject("CRC32", "AAAAAA==")))).isFalse();
        assertThat(ObjectVerifier.hasUnforgeableDigest(info(1, ObjectChecksum.fullObject("SHA256", "AAAAAA==")))).isTrue();
    }

    private PieceStore storeWith(byte[] data, int pieceSize) throws Exception {
        PieceLayout layout = new PieceLayout(data.length, pieceSize);
        PieceStore store = PieceStore.create(dir.resolve("o" + System.nanoTime()), layout);
        for (int p = 0; p < layout.pieceCount(); p++) {
            store.write(layout.offset(p), ByteBuffer.wrap(data, (int) layout.offset(p), layout.length(p)));
            CRC32C crc = new CRC32C();
            crc.update(data, (int) layout.offset(p), layout.length(p));
            store.completePiece(p, (int) crc.getValue());
        }
        return store;
    }

    private static ObjectInfo info(long size, ObjectChecksum checksum) {
        return new ObjectInfo("b", "k", size, "\"etag\"", Optional.ofNullable(checksum));
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
