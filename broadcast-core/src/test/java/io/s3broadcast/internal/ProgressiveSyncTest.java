package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressiveSyncTest {

    @TempDir
    Path dir;

    @Test
    void flushesOnceEveryThresholdOfPiecesLandedAndOneAtATime() throws Exception {
        ManualScheduler executor = new ManualScheduler();
        PieceLayout layout = new PieceLayout(10 * 1000, 1000);
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            ProgressiveSync sync = ProgressiveSync.start(store, 3000, executor);
            for (int p = 0; p < 2; p++) {
                land(store, p);
            }
            assertThat(executor.scheduled()).isEmpty();
            land(store, 2);
            assertThat(executor.scheduled()).hasSize(1);
            for (int p = 3; p < 6; p++) {
                land(store, p);
            }
            assertThat(executor.scheduled()).as("one flush at a time").hasSize(1);
            executor.runPending();
            assertThat(executor.scheduled()).isEmpty();
            land(store, 6);
            assertThat(executor.scheduled()).hasSize(1);
            executor.runPending();
            sync.stop();
            for (int p = 7; p < 10; p++) {
                land(store, p);
            }
            assertThat(executor.scheduled()).as("stopped").isEmpty();
            assertThat(store.commit()).exists();
        }
    }

    private static void land(PieceStore store, int p) throws Exception {
        store.write(store.layout().offset(p), ByteBuffer.allocate(store.layout().length(p)));
        store.completePiece(p, 0);
    }
}
