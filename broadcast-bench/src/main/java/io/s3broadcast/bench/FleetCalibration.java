package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.sun.net.httpserver.HttpServer;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.S3Profile;
import io.s3broadcast.testkit.proxy.ServedRequest;
import io.s3broadcast.testkit.proxy.Throttle;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * {@code fleet --calibrate}: checks the instrument before it is used. (1) Each distinct link delivers its configured
 * rate within 5% (netns: curl in the node's namespace against an HTTP server on the bridge, download and upload;
 * in-process: a GET through a proxy port charged to a node's download throttle). (2) The proxy's per-request rates
 * follow the profile's distribution (Kolmogorov-Smirnov distance of the achieved rates of many concurrent GETs from
 * the distribution, with a histogram). (3) One node's flat fetch takes what the profile predicts (within the 5-95%
 * range of a fluid simulation of the same ranges, connections, rates, latencies and link, widened by 5%).
 */
final class FleetCalibration {

    static final double LINK_TOLERANCE = 0.05;
    static final int REQUESTS = 240;
    static final int CONCURRENCY = 24;

    /**
     * One check.
     *
     * @param check what was checked
     * @param expected what the configuration says
     * @param measured what was measured
     * @param pass whether it is within tolerance
     * @param detail how it was measured and the tolerance
     */
    @JsonPropertyOrder({"check", "expected", "measured", "pass", "detail"})
    record Check(String check, double expected, double measured, boolean pass, String detail) {
    }

    private FleetCalibration() {
    }

    static List<Check> run(FleetCommand.FleetSpec spec, Testbed testbed, Path dir, PrintWriter out)
            throws IOException, InterruptedException {
        List<Check> checks = new ArrayList<>();
        HttpServer server = blobServer(spec.level().equals("netns") ? null : InetAddress.getLoopbackAddress());
        try {
            if (spec.level().equals("netns")) {
                try (NetnsFleet fleet = NetnsFleet.open(spec, testbed, dir)) {
                    HttpServer onBridge = blobServer(InetAddress.getByName(Namespaces.BRIDGE_ADDRESS));
                    try {
                        checks.addAll(netnsLinks(spec, fleet, onBridge, dir));
                    } finally {
                        onBridge.stop(0);
                    }
                }
            } else {
                checks.addAll(inProcessLinks(spec, server));
            }
            print(out, checks);
            List<Check> dist = distribution(spec.profile(), spec.seed(), server, out);
            checks.addAll(dist);
            print(out, dist);
            Check flat = flatFetch(spec, testbed, dir);
            checks.add(flat);
            print(out, List.of(flat));
        } finally {
            server.stop(0);
        }
        return checks;
    }

    private static void print(PrintWriter out, List<Check> checks) {
        for (Check c : checks) {
            out.printf(Locale.ROOT, "  %-4s %-44s expected %12.4g measured %12.4g  (%s)%n", c.pass() ? "ok" : "FAIL",
                    c.check(), c.expected(), c.measured(), c.detail());
        }
        out.flush();
    }

    /** An HTTP server: {@code GET /bytes/N} sends N bytes, {@code POST /sink} reads and drops the body. */
    static HttpServer blobServer(InetAddress bind) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(bind != null ? bind : InetAddress.getLoopbackAddress(), 0), 64);
        byte[] block = new byte[64 * 1024];
        new Random(1).nextBytes(block);
        server.createContext("/bytes/", ex -> {
            long n = Long.parseLong(ex.getRequestURI().getPath().substring("/bytes/".length()));
            ex.sendResponseHeaders(200, n);
            try (OutputStream o = ex.getResponseBody()) {
                for (long left = n; left > 0; left -= block.length) {
                    o.write(block, 0, (int) Math.min(block.length, left));
                }
            }
        });
        server.createContext("/sink", ex -> {
            try (InputStream in = ex.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "calibration-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return server;
    }

    private static List<Integer> distinctLinks(FleetCommand.FleetSpec spec) {
        Set<FleetLink> seen = new LinkedHashSet<>();
        List<Integer> nodes = new ArrayList<>();
        for (int i = 0; i < spec.links().size(); i++) {
            if (seen.add(spec.links().get(i))) {
                nodes.add(i);
            }
        }
        return nodes;
    }

    private static List<Check> netnsLinks(FleetCommand.FleetSpec spec, NetnsFleet fleet, HttpServer server, Path dir)
            throws IOException, InterruptedException {
        String missing = FleetTools.missing("curl", "curl");
        if (missing != null) {
            throw new IOException("calibrating the links needs curl: " + missing);
        }
        List<Check> checks = new ArrayList<>();
        String base = "http://" + Namespaces.BRIDGE_ADDRESS + ":" + server.getAddress().getPort();
        for (int node : distinctLinks(spec)) {
            FleetLink link = spec.links().get(node);
            if (link.down() > 0) {
                long bytes = Math.max(4L << 20, 4 * link.down());
                String speed = Namespaces.run(fleet.namespaces().inNamespace(node, List.of("curl", "-s", "-o", "/dev/null",
                        "-w", "%{speed_download}", base + "/bytes/" + bytes)), false).trim();
                checks.add(linkCheck("node " + node + " download (" + link.describe() + ")", link.down(),
                        Double.parseDouble(speed), "curl GET of " + ByteSize.format(bytes) + " from the bridge"));
            }
            if (link.up() > 0) {
                long bytes = Math.max(4L << 20, 4 * link.up());
                Path file = dir.resolve("upload-" + node + ".bin");
                try (var o = Files.newOutputStream(file)) {
                    byte[] block = new byte[1 << 20];
                    for (long left = bytes; left > 0; left -= block.length) {
                        o.write(block, 0, (int) Math.min(block.length, left));
                    }
                }
                String speed = Namespaces.run(fleet.namespaces().inNamespace(node, List.of("curl", "-s", "-o", "/dev/null",
                        "-w", "%{speed_upload}", "--data-binary", "@" + file, base + "/sink")), false).trim();
                Files.deleteIfExists(file);
                checks.add(linkCheck("node " + node + " upload (" + link.describe() + ")", link.up(),
                        Double.parseDouble(speed), "curl POST of " + ByteSize.format(bytes) + " to the bridge"));
            }
        }
        return checks;
    }

    private static List<Check> inProcessLinks(FleetCommand.FleetSpec spec, HttpServer server) throws IOException,
            InterruptedException {
        List<Check> checks = new ArrayList<>();
        try (FaultProxy proxy = FaultProxy.builder(server.getAddress()).start()) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (int node : distinctLinks(spec)) {
                FleetLink link = spec.links().get(node);
                if (link.down() <= 0) {
                    continue;
                }
                Throttle throttle = Throttle.of(link.down());
                URI port = proxy.openPort("calibrate-" + node, throttle);
                long bytes = Math.max(4L << 20, 4 * link.down());
                long start = System.nanoTime();
                HttpResponse<Void> r = client.send(HttpRequest.newBuilder(port.resolve("/bytes/" + bytes)).build(),
                        HttpResponse.BodyHandlers.discarding());
                double seconds = (System.nanoTime() - start) / 1e9;
                if (r.statusCode() != 200) {
                    throw new IOException("calibration GET answered " + r.statusCode());
                }
                checks.add(linkCheck("node " + node + " download (" + link.describe() + ")", link.down(), bytes / seconds,
                        "GET of " + ByteSize.format(bytes) + " through its proxy port; upload (Netty's traffic shaper) not calibrated"));
            }
        }
        return checks;
    }

    private static Check linkCheck(String what, long expected, double measured, String how) {
        boolean pass = Math.abs(measured - expected) <= LINK_TOLERANCE * expected;
        return new Check(what + " bytes/s", expected, SingleCommand.round(measured, 0), pass, how + ", within 5%");
    }

    /** Many concurrent GETs through a proxy with the profile (its aggregate cap off): achieved rates vs the distribution. */
    private static List<Check> distribution(S3Profile profile, long seed, HttpServer server, PrintWriter out)
            throws IOException, InterruptedException {
        if (profile.rates() == null) {
            return List.of(new Check("per-request rates", 0, 0, true, "the profile has none"));
        }
        S3Profile uncapped = profile.withAggregateCap(0);
        long body = Math.max(256 * 1024, Math.round(profile.rates().mean() * 0.25));
        double[] achieved;
        try (FaultProxy proxy = FaultProxy.builder(server.getAddress()).profile(uncapped).seed(seed).start()) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .executor(Executors.newFixedThreadPool(4)).build();
            Semaphore slots = new Semaphore(CONCURRENCY);
            List<CompletableFuture<HttpResponse<Void>>> all = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                slots.acquire();
                all.add(client.sendAsync(HttpRequest.newBuilder(proxy.endpoint().resolve("/bytes/" + body))
                        .timeout(Duration.ofMinutes(5)).build(), HttpResponse.BodyHandlers.discarding())
                        .whenComplete((r, e) -> slots.release()));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
            achieved = proxy.servedRequests().stream().mapToDouble(ServedRequest::achievedRate).sorted().toArray();
        }
        Random random = new Random(seed + 1);
        double[] expected = new double[20_000];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = uncapped.perConnectionCap() > 0
                    ? Math.min(uncapped.rates().draw(random), uncapped.perConnectionCap()) : uncapped.rates().draw(random);
        }
        Arrays.sort(expected);
        double ks = ks(achieved, expected);
        double critical = 1.63 / Math.sqrt(achieved.length); // 1% level
        histogram(out, achieved, expected);
        double meanAchieved = Arrays.stream(achieved).average().orElse(0);
        double meanExpected = Arrays.stream(expected).average().orElse(0);
        return List.of(
                new Check("per-request rate: KS distance", 0, SingleCommand.round(ks, 4), ks <= critical,
                        achieved.length + " GETs of " + ByteSize.format(body) + ", " + CONCURRENCY
                                + " at a time; pass below the 1% critical value " + SingleCommand.round(critical, 4)),
                new Check("per-request rate: mean bytes/s", SingleCommand.round(meanExpected, 0),
                        SingleCommand.round(meanAchieved, 0), Math.abs(meanAchieved - meanExpected) <= 0.05 * meanExpected,
                        "within 5%"));
    }

    private static double ks(double[] a, double[] b) {
        double d = 0;
        int i = 0;
        int j = 0;
        while (i < a.length && j < b.length) {
            double x = Math.min(a[i], b[j]);
            while (i < a.length && a[i] <= x) {
                i++;
            }
            while (j < b.length && b[j] <= x) {
                j++;
            }
            d = Math.max(d, Math.abs((double) i / a.length - (double) j / b.length));
        }
        return d;
    }

    private static void histogram(PrintWriter out, double[] achieved, double[] expected) {
        double max = Math.max(achieved[achieved.length - 1], expected[(int) (expected.length * 0.995)]);
        int bins = 12;
        double width = max / bins;
        out.printf(Locale.ROOT, "%n  per-request rates (MB/s): measured share | expected share%n");
        for (int b = 0; b < bins; b++) {
            double lo = b * width;
            double hi = (b + 1) * width;
            double m = share(achieved, lo, hi, b == bins - 1);
            double e = share(expected, lo, hi, b == bins - 1);
            out.printf(Locale.ROOT, "  %6.2f-%-6.2f %5.1f%% %-30s | %5.1f%% %s%n", lo / 1e6, hi / 1e6, 100 * m,
                    "#".repeat((int) Math.round(m * 100)), 100 * e, "#".repeat((int) Math.round(e * 100)));
        }
    }

    private static double share(double[] sorted, double lo, double hi, boolean last) {
        long n = Arrays.stream(sorted).filter(x -> x >= lo && (last || x < hi)).count();
        return (double) n / sorted.length;
    }

    /** Node 0 alone, flat tree, on its link and the profile; against the fluid simulation's 5-95% range. */
    private static Check flatFetch(FleetCommand.FleetSpec spec, Testbed testbed, Path dir) throws IOException,
            InterruptedException {
        FleetCommand.FleetSpec one = new FleetCommand.FleetSpec(spec.level(), 1, spec.size(), spec.seed(),
                List.of(spec.links().get(0)), spec.latencyMillis(), spec.profile(), spec.cpuPerNode(), spec.tuning(),
                spec.expectTimeout(), spec.timeout(), Churn.NONE, spec.congestionControl());
        FleetTrial trial;
        try (FleetCommand.FleetLevel level = one.level().equals("netns") ? NetnsFleet.open(one, testbed, dir)
                : new InProcessFleet(one, testbed, dir)) {
            trial = level.run("flat-tree", 1);
        }
        long range = spec.tuning().rangeSize != null ? spec.tuning().rangeSize : FleetBaselines.DEFAULT_PART;
        int connections = spec.tuning().connections != null ? spec.tuning().connections : FleetBaselines.DEFAULT_CONNECTIONS;
        double[] predicted = FlatFetchModel.simulate(spec.profile(), spec.size(), range, connections,
                spec.links().get(0).down(), 2000, spec.seed());
        double p5 = FlatFetchModel.quantile(predicted, 0.05);
        double p50 = FlatFetchModel.quantile(predicted, 0.5);
        double p95 = FlatFetchModel.quantile(predicted, 0.95);
        Double measured = trial.slowest();
        boolean pass = measured != null && measured >= p5 * 0.95 && measured <= p95 * 1.05;
        return new Check("one node's flat fetch seconds", SingleCommand.round(p50, 3),
                measured == null ? -1 : measured, pass, String.format(Locale.ROOT,
                        "%s in %s ranges on %d connections; predicted 5-95%% %.3f-%.3f s (fluid model), within it +-5%%;"
                                + " the measurement includes verification and commit", ByteSize.format(spec.size()),
                        ByteSize.format(range), connections, p5, p95));
    }
}
