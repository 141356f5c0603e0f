package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one-connection start of a node alone in its view, on fake time. */
class NarrowStartTest {

    private static final RangeReads SIZED = new RangeReads(8, 4L << 20);

    private final ManualScheduler time = new ManualScheduler();
    private final WorkList works = new WorkList(16, List.of(new PieceRun(0, 8), new PieceRun(8, 16)));
    private int ends;
    private final NarrowStart start = new NarrowStart(works, time, () -> ends++);
    private PieceQueue queue;
    private RangeReads reads;

    private void start() {
        start.start((q, r) -> {
            queue = q;
            reads = r;
        }, SIZED);
    }

    @Test
    void aNodeNotAloneReadsItsWorksWithTheSizedReads() {
        start();
        assertThat(start.active()).isFalse();
        assertThat(queue).isSameAs(works);
        assertThat(reads).isEqualTo(SIZED);
    }

    @Test
    void aloneItReadsThroughOneConnectionUntilItLearnsOfAnotherMember() {
        start.begin(NarrowStart.ALONE_GRACE_MILLIS);
        start();
        assertThat(start.active()).isTrue();
        assertThat(reads).isEqualTo(new RangeReads(1, SIZED.rangeBytes()));
        assertThat(queue.poll(8)).isEqualTo(new PieceRun(0, 8));

        start.end();
        start.end(); // once
        assertThat(ends).isEqualTo(1);
        assertThat(start.active()).isFalse();
        assertThat(queue.poll(8)).isNull(); // the one-connection fetch ends after its read in flight
        assertThat(time.scheduled()).isEmpty(); // the grace timer is cancelled
        start();
        assertThat(queue).isSameAs(works);
        assertThat(reads).isEqualTo(SIZED);
    }

    @Test
    void theGraceEndsIt() {
        start.begin(NarrowStart.ALONE_GRACE_MILLIS);
        time.advance(Duration.ofMillis(NarrowStart.ALONE_GRACE_MILLIS - 1));
        assertThat(start.active()).isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(start.active()).isFalse();
        assertThat(ends).isEqualTo(1);
    }
}
