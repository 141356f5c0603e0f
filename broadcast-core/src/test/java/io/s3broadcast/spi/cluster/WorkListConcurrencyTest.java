package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several S3 connections poll a work list while the peer exchange gives works away to a thief whose own
 * connections poll them: every piece of the share is handed out exactly once. Bounded in iterations; the
 * only waits are for the worker threads to finish.
 */
class WorkListConcurrencyTest {

    private static final int PIECES = 20_000;
    private static final int ROUNDS = 25;
    private static final int GIVE_AWAYS = 60;

    private final ExecutorService pool = Executors.newFixedThreadPool(5);

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void concurrentPollGiveAwayAndAppendLoseAndDuplicateNothing() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            int nodes = 3;
            int index = round % nodes;
            int workSize = 1 + round % 13;
            int first = Shares.first(PIECES, nodes, index);
            int end = Shares.end(PIECES, nodes, index);
            WorkList victim = WorkList.forShare(PIECES, nodes, index, workSize);
            WorkList thief = new WorkList(PIECES, List.of());
            AtomicIntegerArray handedOut = new AtomicIntegerArray(PIECES);
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch thiefDone = new CountDownLatch(1);

            List<Future<?>> tasks = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                long seed = round * 31L + c;
                tasks.add(pool.submit(() -> {
                    await(start);
                    connection(victim, handedOut, new Random(seed), null);
                    return null;
                }));
            }
            long thiefSeed = round;
            tasks.add(pool.submit(() -> {
                await(start);
                connection(thief, handedOut, new Random(thiefSeed), thiefDone);
                return null;
            }));
            tasks.add(pool.submit(() -> {
                await(start);
                try {
                    for (int i = 0; i < GIVE_AWAYS; i++) {
                        List<PieceRun> given = victim.giveAway(1 + i % 7);
                        for (PieceRun w : given) {
                            assertThat(w.first()).isGreaterThanOrEqualTo(first);
                            assertThat(w.end()).isLessThanOrEqualTo(end);
                        }
                        thief.append(given);
                        Thread.yield();
                    }
                } finally {
                    thiefDone.countDown();
                }
                return null;
            }));
            start.countDown();
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }

            for (int p = 0; p < PIECES; p++) {
                int expected = p >= first && p < end ? 1 : 0;
                assertThat(handedOut.get(p)).as("round %d piece %d", round, p).isEqualTo(expected);
            }
            assertThat(victim.isEmpty()).isTrue();
            assertThat(thief.isEmpty()).isTrue();
        }
    }

    /**
     * One S3 connection: polls runs of random length and stores them. With {@code until} null it stops at
     * the first null; otherwise it keeps polling until {@code until} is open and a poll returns null.
     */
    private static void connection(WorkList list, AtomicIntegerArray handedOut, Random random, CountDownLatch until) {
        while (true) {
            boolean last = until == null || until.getCount() == 0;
            PieceRun run = list.poll(1 + random.nextInt(16));
            if (run == null) {
                if (last) {
                    return;
                }
                Thread.yield();
                continue;
            }
            for (int p = run.first(); p < run.end(); p++) {
                handedOut.incrementAndGet(p);
            }
            for (int p = run.first(); p < run.end(); p++) {
                list.pieceStored(p);
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
