package io.s3broadcast.s3.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Counts the S3 requests of N registry clients of one group against a real S3 server, on fake time with the default
 * timings: what joining costs, what one minute of steady state costs, and what leaving costs, per node and by kind.
 * The sizes come from {@code -Ds3broadcast.registry.counts=10,100} (the default). The figures go in docs/scale.md.
 */
@RealS3
class RegistryRequestCountIT {

    /** AWS list prices, us-east-1, S3 Standard, per request (per 1,000 requests: $0.005 and $0.0004). */
    static final double PUT_LIST_POST = 0.005 / 1000;
    static final double GET_HEAD = 0.0004 / 1000;

    private S3Fixture s3;

    @Test
    void requestsPerNodePerMinute() throws Exception {
        String sizes = System.getProperty("s3broadcast.registry.counts", "10,100");
        for (int n : Arrays.stream(sizes.split(",")).mapToInt(x -> Integer.parseInt(x.trim())).toArray()) {
            run(n);
        }
    }

    private void run(int n) throws Exception {
        RequestCounter counter = new RequestCounter();
        S3AsyncClient client = s3.closeAfterTest(s3.server().asyncClientBuilder()
                .overrideConfiguration(o -> o.addExecutionInterceptor(counter)).build());
        ManualScheduler scheduler = new ManualScheduler(Instant.now());
        RegistryConfig config = RegistryConfig.builder(GroupId.of("data", "model.bin", "\"n" + n + "\""))
                .s3Client(counter.heldUntilHandled(client))
                .clock(scheduler.clock())
                .scheduler(scheduler)
                .build();
        String prefix = s3.key("count-" + n);
        List<S3PrefixRegistry> fleet = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(Math.min(n, 32));
        try {
            List<CompletableFuture<NodeInfo>> joins = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                S3PrefixRegistry r = new S3PrefixRegistry(client, false, s3.bucket(), prefix, config);
                fleet.add(r);
                NodeInfo node = new NodeInfo("node-" + i, "10.1." + (i / 250) + "." + (i % 250), 7000);
                joins.add(CompletableFuture.supplyAsync(() -> {
                    r.start();
                    return r.register(node);
                }, threads));
            }
            FakeTime.drive(scheduler, CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)), Duration.ofMinutes(5));
            counter.awaitIdle(Duration.ofMinutes(1));
            Map<String, Long> join = counter.byKind();
            counter.reset();

            Duration minute = Duration.ofMinutes(1);
            for (Duration t = Duration.ZERO; t.compareTo(minute) < 0; t = t.plusMillis(100)) {
                scheduler.advance(Duration.ofMillis(100));
                counter.awaitIdle(Duration.ofMinutes(1));
            }
            Map<String, Long> steady = counter.byKind();
            Map<String, Long> statuses = counter.byStatus();
            counter.reset();
            // S3Proxy's If-Match is not atomic: a renewal lost in the last round is written again at the next poll,
            // so at any one moment a few members may be missing there; never with atomic conditional writes.
            boolean atomic = !s3.server().name().toLowerCase(java.util.Locale.ROOT).contains("s3proxy");
            for (S3PrefixRegistry r : fleet) {
                assertThat(r.members().size()).as("members seen by " + r.self()).isBetween(atomic ? n : n - n / 10, n);
            }

            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (S3PrefixRegistry r : fleet) {
                closes.add(CompletableFuture.runAsync(r::close, threads));
            }
            FakeTime.drive(scheduler, CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)), Duration.ofMinutes(5));
            long left = storedEntries(prefix, config); // S3Proxy's non-atomic If-Match can bring a removed entry back
            counter.awaitIdle(Duration.ofMinutes(1));
            Map<String, Long> leave = counter.byKind();

            System.out.printf("%n[%s] N = %d, %d manifest shards, poll %s, heartbeat %s%n", s3.server().name(), n,
                    config.manifestShards(), config.pollInterval(), config.heartbeatInterval());
            System.out.printf("  join, per node:             %s%n", perNode(join, n, 1));
            System.out.printf("  steady, per node per min:   %s   (statuses %s)%n", perNode(steady, n, 1), statuses);
            System.out.printf("  leave, per node:            %s   (entries left behind, to expire: %d)%n",
                    perNode(leave, n, 1), left);
            double perNodeMinute = cost(steady) / n;
            System.out.printf("  cost: join $%.6f, steady $%.6f per node-minute, leave $%.6f; fleet of %d for 10 min:"
                    + " $%.4f%n", cost(join), perNodeMinute, cost(leave), n, cost(join) + perNodeMinute * n * 10 + cost(leave));

            assertThat(steady.getOrDefault("LIST", 0L)).isZero();
            // Every poll is one GET per shard, every renewal one GET and one PUT, plus what lost races cost.
            long polls = 12L * config.manifestShards();
            assertThat(steady.getOrDefault("GET", 0L)).isBetween(n * (polls + 5), n * (polls + 6) * 2);
            assertThat(steady.getOrDefault("PUT", 0L)).isBetween(n * 5L, n * 6L * 3);
        } finally {
            threads.shutdownNow();
            fleet.forEach(S3PrefixRegistry::close);
        }
    }

    private long storedEntries(String prefix, RegistryConfig config) {
        String groupDir = prefix + "/" + config.group().hash() + "/";
        return s3.client().listObjectsV2(b -> b.bucket(s3.bucket()).prefix(groupDir)).contents().stream()
                .mapToLong(o -> Manifest.parse(s3.getBytes(o.key())).entries().size()).sum();
    }

    private static String perNode(Map<String, Long> counts, int n, int minutes) {
        Map<String, String> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, String.format("%.1f", v / (double) n / minutes)));
        return out.toString();
    }

    static double cost(Map<String, Long> counts) {
        double total = 0;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            total += e.getValue() * switch (e.getKey()) {
                case "GET", "HEAD" -> GET_HEAD;
                case "DELETE" -> 0.0; // free
                default -> PUT_LIST_POST; // PUT, LIST, POST, COPY
            };
        }
        return total;
    }
}
