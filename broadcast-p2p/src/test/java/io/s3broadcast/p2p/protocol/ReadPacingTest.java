package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadPacingTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final ReadPacing pacing = ReadPacing.on(now::get);

    /** One read of {@code bytes} that ends {@code afterMillis} after the last, with {@code pending} frame bytes left. */
    private long read(int bytes, long afterMillis, long pending) {
        now.addAndGet(afterMillis * MS);
        pacing.received(bytes);
        return pacing.waitNanos(pending);
    }

    @Test
    void noWaitUntilARateIsKnown() {
        assertThat(read(4_000, 0, 200_000)).isZero();
    }

    @Test
    void insideALongFrameTheNextReadComesWhenABatchShouldBeIn() {
        read(4_000, 0, 200_000);
        // 20,000 bytes in 100 ms: 200 kB/s, so 64 KiB take 328 ms, more than the longest wait.
        assertThat(read(20_000, 100, 180_000)).isEqualTo(ReadPacing.MAX_WAIT_NANOS);
        // The rate rises to (200 + 2,000) / 2 = 1,100 kB/s: 64 KiB in 59.6 ms.
        assertThat(read(200_000, 100, 150_000)).isEqualTo((long) (ReadPacing.BATCH_BYTES / 1.1e-3));
    }

    @Test
    void theLastBytesOfAFrameAreReadAboutWhenTheyArrive() {
        read(4_000, 0, 200_000);
        // 1 MB/s, 10,000 bytes left: 10 ms.
        assertThat(read(50_000, 50, 10_000)).isEqualTo(10 * MS);
    }

    @Test
    void noWaitBetweenFramesOrOnAFastLink() {
        read(4_000, 0, 200_000);
        assertThat(read(50_000, 50, 0)).as("no frame pending").isZero();
        read(4_000, 0, 200_000);
        // 100 MB/s: 64 KiB in 0.66 ms, below the shortest wait.
        assertThat(read(5_000_000, 50, 200_000)).as("fast link").isZero();
    }

    @Test
    void aPauseBetweenFramesIsNotTakenForASlowLink() {
        read(4_000, 0, 200_000);
        // The frame ends at 1 MB/s (50,000 bytes in 50 ms).
        assertThat(read(50_000, 50, 0)).isZero();
        // The next frame starts 2 s later: the peer had nothing to send meanwhile, so 4,000 bytes over 2 s is no
        // sample, and the wait is 64 KiB at the 1 MB/s the last frame came at (65.5 ms), not the longest wait.
        assertThat(read(4_000, 2_000, 200_000)).isEqualTo((long) (ReadPacing.BATCH_BYTES / 1e-3));
    }

    @Test
    void offNeverWaits() {
        ReadPacing off = ReadPacing.off();
        off.received(10);
        assertThat(off.waitNanos(200_000)).isZero();
        off.received(10);
        assertThat(off.waitNanos(200_000)).isZero();
    }
}
