package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A fetch's check on a real store, pieces landing out of order, hashing on fake time. */
class ObjectVerificationTest {

    @TempDir
    Path dir;

    private final ManualScheduler executor = new ManualScheduler();
    private final byte[] data = random(40 * 4096 + 17);
    private final PieceLayout layout = new PieceLayout(data.length, 4096);

    @Test
    void theEtagAndS3sChecksumAreReadyWhenTheLastPieceIsHashed() throws Exception {
        String md5 = HexFormat.of().formatHex(IncrementalDigestTest.digest("MD5", data, 0, data.length));
        String crc64 = IncrementalDigestTest.base64(IncrementalDigestTest.digest("CRC64NVME", data, 0, data.length));
        ObjectInfo info = info(md5, ObjectChecksum.fullObject("CRC64NVME", crc64));
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            ObjectVerification v = ObjectVerification.start(store, info, true, executor);
            CompletableFuture<ObjectVerifier.Result> result = v.result();
            for (int p : IncrementalDigestTest.shuffled(layout.pieceCount(), new Random(1))) {
                assertThat(result).isNotDone();
                land(store, p, data);
                executor.runPending();
            }
            assertThat(result).isCompletedWithValue(new ObjectVerifier.Result(true, null));
            v.close();
        }
    }

    @Test
    void aWrongPieceIsReportedThenRepairedAndCheckedAgain() throws Exception {
        String md5 = HexFormat.of().formatHex(IncrementalDigestTest.digest("MD5", data, 0, data.length));
        byte[] junk = data.clone();
        junk[4096 * 7 + 3] ^= 1;
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            ObjectVerification v = ObjectVerification.start(store, info(md5, null), true, executor);
            for (int p = layout.pieceCount() - 1; p >= 0; p--) {
                land(store, p, junk);
            }
            executor.runPending();
            assertThat(v.result().join().wholeObjectMismatch()).contains("on disk has MD5").contains("but its ETag is");

            store.forget(7); // as a cluster repair does: forget, write S3's bytes, complete
            land(store, 7, data);
            CompletableFuture<ObjectVerifier.Result> again = v.result();
            executor.runPending();
            assertThat(again).isCompletedWithValue(new ObjectVerifier.Result(true, null));
        }
    }

    @Test
    void theFlatTreeChecksOnlyS3sChecksumAndWithoutOneNothingIsRead() throws Exception {
        String md5 = HexFormat.of().formatHex(IncrementalDigestTest.digest("MD5", data, 0, data.length));
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            ObjectVerification v = ObjectVerification.start(store, info(md5, null), false, executor);
            for (int p = 0; p < layout.pieceCount(); p++) {
                land(store, p, data);
            }
            assertThat(executor.scheduled()).as("nothing to hash").isEmpty();
            assertThat(v.result()).isCompletedWithValue(new ObjectVerifier.Result(false, null));
        }
    }

    private void land(PieceStore store, int p, byte[] bytes) throws Exception {
        store.write(layout.offset(p), ByteBuffer.wrap(bytes, (int) layout.offset(p), layout.length(p)));
        CRC32C crc = new CRC32C();
        crc.update(bytes, (int) layout.offset(p), layout.length(p));
        store.completePiece(p, (int) crc.getValue());
    }

    private ObjectInfo info(String md5, ObjectChecksum checksum) {
        return new ObjectInfo("b", "k", data.length, "\"" + md5 + "\"", Optional.ofNullable(checksum), Optional.empty(),
                ObjectInfo.eTagDigest("\"" + md5 + "\"", false, List.of()));
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
