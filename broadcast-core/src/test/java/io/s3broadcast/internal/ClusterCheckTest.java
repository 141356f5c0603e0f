package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster fetch's check against S3 on a real file and a scripted run: the spot check, the search for the guilty
 * peer, the full repair, and the time the spot check took; hashing and time on a manual scheduler.
 */
class ClusterCheckTest {

    @TempDir
    Path dir;

    private final ManualScheduler executor = new ManualScheduler();
    private final ProgressTracker tracker = new ProgressTracker(List.of(), executor.ticker());
    private final AfterLastPieceTimer timer = new AfterLastPieceTimer(tracker);
    private final byte[] data = random(12 * 4096 + 5);
    private final PieceLayout layout = new PieceLayout(data.length, 4096);
    private final String md5 = HexFormat.of().formatHex(IncrementalDigestTest.digest("MD5", data, 0, data.length));
    /** One PUT: its ETag is the MD5 of the object, a digest no peer can forge. */
    private final ObjectInfo info = new ObjectInfo("b", "k", data.length, "\"" + md5 + "\"", Optional.empty(),
            Optional.empty(), ObjectInfo.eTagDigest("\"" + md5 + "\"", false, List.of()));
    private final ScriptedRun run = new ScriptedRun();
    private FetchFile file;

    @AfterEach
    void close() {
        if (file != null) {
            file.stop(new CancellationException());
            file.closeAfter(null);
        }
    }

    @Test
    void aFileThatIsTheObjectPassesAfterTheSpotCheckWhichIsTimed() throws Exception {
        file = filled(info, data);
        timer.lastPiece();
        CompletableFuture<ClusterRun.Repair> spotCheck = new CompletableFuture<>();
        run.spotCheck = spotCheck;

        CompletableFuture<Filled> checked = new ClusterCheck(run, file, timer).check(new Filled(info, null));
        executor.advance(Duration.ofMillis(700));
        spotCheck.complete(ClusterRun.Repair.NONE);
        executor.runPending();

        assertThat(checked).isCompletedWithValue(new Filled(info, null, ClusterRun.Repair.NONE));
        assertThat(run.budgets).containsExactly(0L); // the ETag vouches for the whole object
        assertThat(run.calls).containsExactly("spotCheck");
        timer.hashed();
        assertThat(timer.until(tracker.elapsed()))
                .isEqualTo(new CompletedFetch.AfterLastPiece(Duration.ofMillis(700), Duration.ZERO, Duration.ZERO));
    }

    @Test
    void aMismatchIsMendedByBanningThePeerCaughtInASampleOfOnePieceEach() throws Exception {
        file = filled(info, wrongAt(7));
        ClusterRun.Repair caught = new ClusterRun.Repair(3, 1, List.of("n2"));
        run.onePiecePerPeer = () -> {
            replace(7);
            return caught;
        };

        CompletableFuture<Filled> checked = new ClusterCheck(run, file, timer).check(new Filled(info, null));
        executor.runPending(); // the file hashed: wrong; piece 7 replaced and hashed again

        assertThat(checked).isCompletedWithValue(new Filled(info, null, caught));
        assertThat(run.calls).containsExactly("spotCheck", "checkOnePiecePerPeer");
    }

    @Test
    void withNoPeerCaughtInTheSampleEveryPieceTakenFromPeersIsReadAgain() throws Exception {
        file = filled(info, wrongAt(2));
        ClusterRun.Repair repaired = new ClusterRun.Repair(9, 1, List.of("n3"));
        run.onePiecePerPeer = () -> ClusterRun.Repair.NONE;
        run.repair = () -> {
            replace(2);
            return repaired;
        };

        CompletableFuture<Filled> checked = new ClusterCheck(run, file, timer).check(new Filled(info, null));
        executor.runPending();

        assertThat(checked).isCompletedWithValue(new Filled(info, null, repaired));
        assertThat(run.calls).containsExactly("spotCheck", "checkOnePiecePerPeer", "repair");
    }

    @Test
    void aFileStillWrongAfterTheBansIsRepairedInFull() throws Exception {
        file = filled(info, wrongAt(4));
        run.onePiecePerPeer = () -> new ClusterRun.Repair(2, 0, List.of("n1")); // banned, but not the liar
        ClusterRun.Repair repaired = new ClusterRun.Repair(9, 1, List.of("n1", "n4"));
        run.repair = () -> {
            replace(4);
            return repaired;
        };

        CompletableFuture<Filled> checked = new ClusterCheck(run, file, timer).check(new Filled(info, null));
        executor.runPending();

        assertThat(checked).isCompletedWithValue(new Filled(info, null, repaired));
        assertThat(run.calls).containsExactly("spotCheck", "checkOnePiecePerPeer", "repair");
    }

    @Test
    void aPieceARepairDroppedFailsTheCheckNamingIt() throws Exception {
        file = filled(info, data);
        run.spotCheckDoes = () -> file.store().forget(5); // and could not write it back

        CompletableFuture<Filled> checked = new ClusterCheck(run, file, timer).check(new Filled(info, null));

        assertThatThrownBy(checked::join).cause().isExactlyInstanceOf(BroadcastException.class)
                .hasMessageStartingWith("s3://b/k: piece 5 of 13 is missing from");
    }

    @Test
    void onlyAnObjectWithoutADigestPeersCannotForgeGetsASpotCheckBudget() {
        ObjectInfo crc = new ObjectInfo("b", "k", 1_000_000, "\"abc-2\"",
                Optional.of(ObjectChecksum.fullObject("CRC64NVME", "AAAAAAAAAAA=")));
        ObjectInfo sha = new ObjectInfo("b", "k", 1_000_000, "\"abc-2\"",
                Optional.of(new ObjectChecksum("SHA256", "x", false, List.of(500_000L, 500_000L))));
        assertThat(ClusterCheck.spotCheckBudget(crc)).isEqualTo(20_000);
        assertThat(ClusterCheck.spotCheckBudget(sha)).isZero();
        assertThat(ClusterCheck.spotCheckBudget(info)).isZero();
        assertThat(ClusterCheck.budgetAsPiecesArrive(crc)).as("the whole spot check runs after the last piece")
                .isZero();
    }

    /** A cluster fetch's file holding {@code bytes}, every piece in. */
    private FetchFile filled(ObjectInfo object, byte[] bytes) throws IOException {
        FetchFile f = FetchFile.open(dir.resolve("object.bin"), object, layout, true, executor);
        for (int p = 0; p < layout.pieceCount(); p++) {
            land(f.store(), p, bytes);
        }
        return f;
    }

    private byte[] wrongAt(int piece) {
        byte[] wrong = data.clone();
        wrong[(int) layout.offset(piece) + 11] ^= 1;
        return wrong;
    }

    /** As a repair does: forget the piece, write S3's bytes, complete it. */
    private void replace(int piece) {
        try {
            file.store().forget(piece);
            land(file.store(), piece, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void land(PieceStore store, int p, byte[] bytes) throws IOException {
        ByteBuffer piece = ByteBuffer.wrap(bytes, (int) layout.offset(p), layout.length(p));
        store.write(layout.offset(p), piece.duplicate());
        CRC32C crc = new CRC32C();
        crc.update(piece.duplicate());
        store.completePiece(p, (int) crc.getValue(), Sha256.of(piece));
    }

    /** A run whose checks against S3 do what the test says, and which records what it was asked. */
    private static final class ScriptedRun implements ClusterRun {
        final List<String> calls = new ArrayList<>();
        final List<Long> budgets = new ArrayList<>();
        CompletableFuture<Repair> spotCheck = CompletableFuture.completedFuture(Repair.NONE);
        Runnable spotCheckDoes = () -> { };
        java.util.function.Supplier<Repair> onePiecePerPeer = () -> {
            throw new AssertionError("no mismatch expected");
        };
        java.util.function.Supplier<Repair> repair = () -> {
            throw new AssertionError("no repair expected");
        };

        @Override
        public CompletableFuture<Outcome> completion() {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<Void> finished() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Repair> spotCheck(long budgetBytes) {
            calls.add("spotCheck");
            budgets.add(budgetBytes);
            spotCheckDoes.run();
            return spotCheck;
        }

        @Override
        public CompletableFuture<Repair> checkOnePiecePerPeer() {
            calls.add("checkOnePiecePerPeer");
            return CompletableFuture.completedFuture(onePiecePerPeer.get());
        }

        @Override
        public CompletableFuture<Repair> repair() {
            calls.add("repair");
            return CompletableFuture.completedFuture(repair.get());
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
