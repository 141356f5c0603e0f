package io.s3broadcast.bench.chaos;

import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Rule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * Runs fault cases, each for a number of trials, against fresh fleets of {@code node} processes that read the
 * object through a fault-injecting {@link FaultProxy} in front of the S3 server (throttled, so that a run lasts
 * long enough for a fault to strike mid-run), and sums each case up in one {@link MatrixResult}.
 */
public final class FaultMatrix implements AutoCloseable {

    private final ChaosContext context;
    private final FaultProxy proxy;
    private final int trials;
    private final String linger;
    private final long seed;
    private final Map<String, URI> ports = new ConcurrentHashMap<>();
    private volatile CountDownLatch firstGet = new CountDownLatch(1);

    /**
     * @param context the object and nodes; its endpoint is the S3 server, which the proxy fronts
     * @param s3Rate the proxy's aggregate response rate in bytes/s (0: unlimited)
     * @param trials trials per case
     * @param nodeTimeout how long a node may run before it counts as hung
     */
    public FaultMatrix(ChaosContext context, long s3Rate, int trials, Duration nodeTimeout, long seed)
            throws IOException {
        URI s3 = context.endpoint();
        this.proxy = FaultProxy.builder(new InetSocketAddress(s3.getHost(), s3.getPort()))
                .aggregateResponseRate(s3Rate).seed(seed).start();
        this.context = context.through(proxy.endpoint(), nodeTimeout);
        this.trials = trials;
        this.linger = "2s";
        this.seed = seed;
    }

    FaultProxy proxy() {
        return proxy;
    }

    String linger() {
        return linger;
    }

    /** The proxy's port labelled {@code label}, opened on first use: S3 bytes through it are counted apart. */
    URI s3Port(String label) throws IOException {
        URI u = ports.get(label);
        if (u == null) {
            u = proxy.openPort(label, null);
            ports.put(label, u);
        }
        return u;
    }

    /** Response bytes (heads and bodies) the proxy sent through the port labelled {@code label} so far. */
    long s3Bytes(String label) {
        return proxy.stats().bytesToClient(label);
    }

    /** Counted down by the first ranged GET of the current trial. */
    CountDownLatch firstGet() {
        return firstGet;
    }

    /** Runs {@code c} for the matrix's trials; {@code progress} hears about each trial. */
    public MatrixResult run(FaultCase c, Consumer<String> progress) throws Exception {
        long start = System.nanoTime();
        MatrixResult.Tally tally = new MatrixResult.Tally(c.name(), context.nodes(), context.size());
        for (int k = 0; k < trials; k++) {
            ChaosContext trialContext = c.context(context, k);
            proxy.clearRules();
            proxy.releaseStalls();
            CountDownLatch first = new CountDownLatch(1);
            firstGet = first;
            proxy.add(Rule.forGets().withRange().where(h -> {
                first.countDown();
                return false; // only notices the GET; never claims it
            }).always().inject(Fault.internalError()));
            MatrixTrial t = new MatrixTrial(this, trialContext, c, k, seed * 1000 + k);
            List<NodeOutcome> outcomes;
            try (t) {
                c.prepare(t);
                t.startAll();
                c.inject(t);
                outcomes = t.await(c);
                c.finish(t);
            } finally {
                proxy.clearRules();
                proxy.releaseStalls();
            }
            tally.add(k, outcomes, t.counts, t.notes.toString());
            progress.accept(c.name() + " trial " + k + ": " + outcomes.stream().map(o -> o.status()
                    + (o.errorKind() != null && !o.errorKind().equals(o.status()) ? "(" + o.errorKind() + ")" : "")
                    + (o.destination().equals("exact") || o.destination().equals("absent") ? "" : "[" + o.destination() + "]"))
                    .toList());
        }
        return tally.result((System.nanoTime() - start) / 1e9);
    }

    @Override
    public void close() {
        proxy.close();
    }
}
