package io.s3broadcast.p2p.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many consecutive broadcasts in one JVM: a cluster of {@value #NODES} in-process nodes on the test's S3 server
 * fetches one small object again and again (forced, every node's file checked), and is replaced by a fresh
 * cluster every {@link #CLUSTER_LIFETIME} broadcasts, so both a long-lived node and closing one are covered.
 * Threads, open file descriptors and direct memory are sampled at the start, every {@link #EVERY} broadcasts and
 * at the end, printed as a table, and must stay flat: after the first cluster has warmed up, no sample may exceed
 * the warm-up sample by more than a small constant.
 *
 * <p>{@code -Ds3broadcast.soak.broadcasts=N} (default 20, CI); the reliability docs give the 200 run.
 */
@RealS3
class SoakIT {

    static final int BROADCASTS = Integer.getInteger("s3broadcast.soak.broadcasts", 20);
    static final int EVERY = Integer.getInteger("s3broadcast.soak.every", 10);
    static final int CLUSTER_LIFETIME = Integer.getInteger("s3broadcast.soak.clusterLifetime", 10);
    static final int NODES = 3;

    /** Growth over the warm-up sample that still counts as flat. */
    static final int THREAD_SLACK = 8;
    static final long FD_SLACK = 32;
    /** Netty's pooled allocator takes direct memory in chunks of 4 MiB per arena; a few more may be in use. */
    static final long DIRECT_SLACK = 32L << 20;

    @Test
    @Timeout(value = 2, unit = TimeUnit.HOURS) // bounded by the count; the 200 run is long on a busy machine
    void threadsFileDescriptorsAndDirectMemoryStayFlat(S3Fixture s3) {
        // 5 pieces of 64 KiB and a short one: every node reads a share and exchanges the rest.
        StoredObject object = s3.putRandom(s3.key("soak.bin"), 5 * 65_536 + 4321, 12);
        FetchRequest request = FetchRequest.builder().bucket(object.bucket()).key(object.key()).force(true).build();
        List<Resources> samples = new ArrayList<>();
        samples.add(Resources.sample("start"));
        Resources warm = null;
        long start = System.nanoTime();
        TestCluster cluster = null;
        try {
            for (int i = 1; i <= BROADCASTS; i++) {
                if (cluster == null) {
                    cluster = TestCluster.builder(s3).nodes(NODES)
                            .configure((n, node) -> node.pieceSize(65_536).linger(Duration.ofSeconds(5))).start();
                }
                List<CompletedFetch> done = cluster.fetch(request);
                for (int n = 0; n < done.size(); n++) {
                    assertThat(TestCluster.sha256(done.get(n).path())).as("broadcast %d, node %d", i, n)
                            .isEqualTo(object.sha256());
                }
                if (i % CLUSTER_LIFETIME == 0) {
                    cluster.close();
                    cluster = null;
                }
                if (i == 1 || i % EVERY == 0 || i == BROADCASTS || i == CLUSTER_LIFETIME) {
                    Resources sample = Resources.sample(i + " broadcasts");
                    samples.add(sample);
                    if (i == Math.min(CLUSTER_LIFETIME, BROADCASTS)) {
                        warm = sample;
                    }
                }
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
            samples.add(Resources.sample("end"));
            System.out.printf("SoakIT: %d broadcasts on %d nodes (a fresh cluster every %d) in %d s%n%s%n", BROADCASTS,
                    NODES, CLUSTER_LIFETIME, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                    Resources.header());
            samples.forEach(s -> System.out.println(s.row()));
        }
        Resources base = warm;
        List<Resources> after = samples.subList(samples.indexOf(base), samples.size());
        assertThat(after).allSatisfy(s -> {
            assertThat(s.threads()).as("threads " + s.label()).isLessThanOrEqualTo(base.threads() + THREAD_SLACK);
            assertThat(s.fds()).as("file descriptors " + s.label()).isLessThanOrEqualTo(base.fds() + FD_SLACK);
            assertThat(s.nettyDirectBytes()).as("Netty's direct memory " + s.label())
                    .isLessThanOrEqualTo(Math.max(base.nettyDirectBytes(), 0) + DIRECT_SLACK);
        });
        // Direct memory also holds the JDK's per-thread temporary buffers (sun.nio.ch.Util), freed only when their
        // thread is gone and the cleaner has run: one sample may be high, a leak keeps the low ones high too.
        long lowest = after.stream().skip(after.size() / 2).mapToLong(Resources::directBytes).min().orElseThrow();
        assertThat(lowest).as("lowest direct memory in the second half").isLessThanOrEqualTo(base.directBytes()
                + DIRECT_SLACK);
    }
}
