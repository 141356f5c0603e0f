package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A fetch's temporary file on a real directory: checked, published, kept or removed, closed; hashing on fake time. */
class FetchFileTest {

    @TempDir
    Path dir;

    private final ManualScheduler executor = new ManualScheduler();
    private final byte[] data = random(10 * 4096 + 17);
    private final PieceLayout layout = new PieceLayout(data.length, 4096);
    private final String md5 = HexFormat.of().formatHex(IncrementalDigestTest.digest("MD5", data, 0, data.length));
    private final ObjectInfo info = new ObjectInfo("b", "k", data.length, "\"" + md5 + "\"", Optional.empty(),
            Optional.empty(), ObjectInfo.eTagDigest("\"" + md5 + "\"", false, List.of()));

    @Test
    void aMissingPieceFailsTheCheckAtOnceNamingItThenTheWholeFileIsChecked() throws Exception {
        FetchFile file = open();
        for (int p = 0; p < layout.pieceCount(); p++) {
            if (p != 3) {
                land(file.store(), p, data);
            }
        }
        executor.runPending();
        CompletableFuture<ObjectVerifier.Result> missing = file.verified();
        assertThat(missing).isCompletedExceptionally();
        assertThatThrownBy(missing::join).cause().isExactlyInstanceOf(BroadcastException.class)
                .hasMessage("s3://b/k: piece 3 of 11 is missing from " + file.store().tempFile() + " after the fetch"
                        + " and its checks (a repair dropped it and could not write it back); fetch again");

        land(file.store(), 3, data);
        CompletableFuture<ObjectVerifier.Result> verified = file.verified();
        assertThat(file.bytesLeftToHash()).isPositive();
        executor.runPending();
        assertThat(verified).isCompletedWithValue(new ObjectVerifier.Result(true, null));
        file.stop(new CancellationException());
        file.closeAfter(null);
    }

    @Test
    void publishingPutsTheFileInPlaceAndLeavesOnlyItAndItsRecord() throws Exception {
        FetchFile file = open();
        for (int p = layout.pieceCount() - 1; p >= 0; p--) {
            land(file.store(), p, data);
        }
        CompletableFuture<ObjectVerifier.Result> verified = file.verified();
        executor.runPending();
        assertThat(verified).isCompletedWithValue(new ObjectVerifier.Result(true, null));
        Path destination = file.publish();
        file.closeAfter(null);

        assertThat(destination).isEqualTo(dest());
        assertThat(Files.readAllBytes(destination)).isEqualTo(data);
        assertThat(FetchRecord.matches(destination, info)).isTrue();
        assertThat(files()).containsExactlyInAnyOrder("object.bin", ".object.bin.s3broadcast");
        assertThat(file.store().isClosed()).isTrue();
    }

    @Test
    void aFailureAfterWhichThePiecesAreOfUseKeepsThemForTheNextFetch() throws Exception {
        FetchFile file = open();
        land(file.store(), 0, data);
        land(file.store(), 7, data);
        file.stop(new BroadcastException("S3 unreachable"));
        file.closeAfter(null);
        assertThat(files()).hasSize(2).allMatch(n -> n.endsWith(".s3b-part") || n.endsWith(".s3b-journal"));

        FetchFile next = open();
        assertThat(next.store().presentCount()).isEqualTo(2);
        assertThat(next.store().hasPiece(0)).isTrue();
        assertThat(next.store().hasPiece(7)).isTrue();
        next.stop(new CancellationException());
        next.closeAfter(null);
    }

    @Test
    void aCancellationRemovesTheFileAndItsJournal() throws Exception {
        FetchFile file = open();
        land(file.store(), 0, data);
        file.stop(new CancellationException());
        file.closeAfter(null);
        assertThat(files()).isEmpty();
    }

    @Test
    void theStoreStaysOpenWhileTheClusterRunLingersToServePeers() throws Exception {
        FetchFile file = open();
        for (int p = 0; p < layout.pieceCount(); p++) {
            land(file.store(), p, data);
        }
        file.publish();
        CompletableFuture<Void> finished = new CompletableFuture<>();
        file.closeAfter(lingering(finished));
        assertThat(file.store().isClosed()).isFalse();

        finished.complete(null);
        assertThat(file.store().isClosed()).isTrue();
        assertThat(Files.readAllBytes(dest())).isEqualTo(data);
    }

    @Test
    void aDestinationWhereNoFileCanBeCreatedIsUnusable() {
        Path nowhere = dir.resolve("missing").resolve("object.bin");
        assertThatThrownBy(() -> FetchFile.open(nowhere, info, layout, false, executor))
                .isInstanceOf(BroadcastException.DestinationUnusable.class)
                .hasMessageStartingWith("cannot create a temporary file beside " + nowhere)
                .hasMessageEndingWith("): choose a writable destination for s3://b/k");
    }

    /** A cluster fetch's file: it keeps each piece's SHA-256 and checks the ETag as a digest. */
    private FetchFile open() {
        return FetchFile.open(dest(), info, layout, true, executor);
    }

    private Path dest() {
        return dir.resolve("object.bin");
    }

    private void land(PieceStore store, int p, byte[] bytes) throws IOException {
        ByteBuffer piece = ByteBuffer.wrap(bytes, (int) layout.offset(p), layout.length(p));
        store.write(layout.offset(p), piece.duplicate());
        CRC32C crc = new CRC32C();
        crc.update(piece.duplicate());
        store.completePiece(p, (int) crc.getValue(), store.keepsDigests() ? Sha256.of(piece) : null);
    }

    /** A run that serves peers from the store until {@code finished} completes. */
    private static ClusterRun lingering(CompletableFuture<Void> finished) {
        return new ClusterRun() {
            @Override
            public CompletableFuture<Outcome> completion() {
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<Void> finished() {
                return finished;
            }
        };
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
