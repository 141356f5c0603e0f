package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.proxy.FaultProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * N nodes of a broadcast in this JVM: N {@link Broadcast} instances, each with its own S3 client, directory, node id
 * and loopback peer port, all listed in one static registry and expecting N nodes. One {@link #run} is one trial: all
 * nodes start together, and each node's completion time is taken from that common start.
 *
 * <p>A node can be given its own S3 endpoint: a {@link FaultProxy} in front of the server whose every connection's
 * responses are limited to a rate ({@code --throttle-node}, {@code --node-rate}), so one node's S3 is slower than the
 * others'.
 */
final class LocalCluster {

    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    private static final String LOOPBACK = "127.0.0.1";

    /**
     * @param nodes how many nodes
     * @param strategy the strategy every node uses
     * @param tuning transfer settings of every node
     * @param throttleNode index of the node whose S3 connections get {@code throttleRate}, or -1
     * @param throttleRate bytes per second per S3 connection of the throttled node
     * @param nodeRate bytes per second per S3 connection of every other node; 0 for a direct, unlimited connection
     * @param expectTimeout how long nodes wait for each other to join
     * @param timeout how long a trial may take before the nodes still running are cancelled
     * @param security the group secret, insecure mode and TLS of every node; without a secret or insecure mode,
     *     the nodes get a random secret per trial
     */
    record Options(int nodes, Strategy strategy, NodeTuning tuning, int throttleNode, long throttleRate, long nodeRate,
            Duration expectTimeout, Duration timeout, PeerSecurityOptions security) {

        Options {
            if (nodes < 1) {
                throw new IllegalArgumentException("a cluster needs at least one node");
            }
            if (throttleNode >= nodes) {
                throw new IllegalArgumentException("--throttle-node " + throttleNode + " is not one of nodes 0-" + (nodes - 1));
            }
        }

        Options withStrategy(Strategy s) {
            return new Options(nodes, s, tuning, throttleNode, throttleRate, nodeRate, expectTimeout, timeout, security);
        }

        long rateOf(int node) {
            return node == throttleNode ? throttleRate : nodeRate;
        }
    }

    private LocalCluster() {
    }

    /**
     * Runs one trial: every node fetches {@code testbed}'s object into its own directory under {@code workDir}; then
     * each file's SHA-256 is checked against the object's and the file is deleted.
     *
     * @param listeners a listener for node i, or null
     */
    static ClusterTrial run(Testbed testbed, Options options, Path workDir, int trial, IntFunction<FetchListener> listeners)
            throws IOException, InterruptedException {
        return run(testbed, options, workDir, trial, listeners, null);
    }

    /** How a caller places one node: its S3 endpoint, and anything else it sets on the node's builder. */
    interface NodeSetup {
        /**
         * Called before node {@code node} is built.
         *
         * @param base the endpoint the node would use (the server's, or its throttling proxy's)
         * @param builder the node's builder, to which the caller may add (its cluster strategy, say)
         * @return the endpoint it uses
         */
        Endpoint place(int node, String nodeId, Endpoint base, Broadcast.Builder builder) throws IOException;
    }

    /** {@link #run(Testbed, Options, Path, int, IntFunction)}, with {@code setup} (or null) placing each node. */
    static ClusterTrial run(Testbed testbed, Options options, Path workDir, int trial, IntFunction<FetchListener> listeners,
            NodeSetup setup) throws IOException, InterruptedException {
        return run(testbed, options, workDir, trial, listeners, setup, Churn.NONE, null, new AtomicLong());
    }

    /**
     * {@link #run(Testbed, Options, Path, int, IntFunction, NodeSetup)} with nodes that join late or leave mid-run
     * ({@link Churn}: joiners start when {@code clocks}' clock says, through the S3-prefix registry; leavers close their
     * {@code Broadcast} when it says). {@code startMillis} is set to the start (epoch ms).
     *
     * @param clocks makes the trial's {@link ChurnClock} from the start (epoch ms); null without churn
     */
    static ClusterTrial run(Testbed testbed, Options options, Path workDir, int trial, IntFunction<FetchListener> listeners,
            NodeSetup setup, Churn churn, java.util.function.LongFunction<ChurnClock> clocks, AtomicLong startMillis)
            throws IOException, InterruptedException {
        int n = options.nodes();
        Path trialDir = Files.createDirectories(workDir.resolve(Converters.name(options.strategy()) + "-" + trial));
        List<FaultProxy> proxies = new ArrayList<>();
        List<Broadcast> broadcasts = new ArrayList<>();
        try {
            List<Integer> ports = options.strategy().isCluster() ? FreePorts.loopback(n) : List.of();
            // One JVM, so one random secret for the trial's nodes: strangers on the machine still get nothing.
            byte[] secret = new byte[32];
            new java.security.SecureRandom().nextBytes(secret);
            String registry = "static:" + ports.stream().map(p -> LOOPBACK + ":" + p).collect(Collectors.joining(","));
            if (churn.join() > 0) {
                // A static list has every member from the start; a joiner must find the group complete to join late.
                registry = "s3://" + testbed.bucket() + "/s3b-registry/" + trialDir.getFileName() + "-"
                        + Long.toHexString(new java.security.SecureRandom().nextLong());
            }
            List<String> ids = new ArrayList<>();
            List<Path> files = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Endpoint endpoint = testbed.endpoint();
                long rate = options.rateOf(i);
                if (rate > 0) {
                    FaultProxy proxy = FaultProxy.builder(upstreamOf(endpoint.uri())).perConnectionResponseRate(rate).start();
                    proxies.add(proxy);
                    endpoint = endpoint.via(proxy.endpoint());
                }
                Path dir = Files.createDirectories(trialDir.resolve("node-" + i));
                String id = options.strategy().isCluster() ? NodeInfo.idFor(LOOPBACK, ports.get(i)) : "node-" + i;
                Broadcast.Builder builder = Broadcast.builder();
                if (setup != null) {
                    endpoint = setup.place(i, id, endpoint, builder);
                }
                endpoint.configure(builder).destinationDirectory(dir).strategy(options.strategy()).nodeId(id);
                if (options.strategy().isCluster()) {
                    if (options.security() == null || !options.security().choosesSecret()) {
                        builder.secret(secret);
                    }
                    if (options.security() != null) {
                        options.security().applyTo(builder);
                    }
                    builder.registry(registry)
                            .listen(new InetSocketAddress(LOOPBACK, ports.get(i)))
                            .advertisedHost(LOOPBACK);
                    if (!options.tuning().noExpectNodes) {
                        builder.expectNodes(churn.starters(n), options.expectTimeout());
                    }
                }
                options.tuning().applyTo(builder);
                broadcasts.add(builder.build());
                ids.add(id);
                files.add(dir.resolve(NodeCommand.fileName(testbed.key())));
            }

            // One thread per node calls fetch() when the start gun fires, so no node starts late because the
            // fetch() calls before it (each binds a peer server and starts an S3 client) ran first.
            List<CompletableFuture<CompletedFetch>> futures = new ArrayList<>();
            long[] ended = new long[n];
            FetchHandle[] handles = new FetchHandle[n];
            CountDownLatch startGun = new CountDownLatch(1);
            ChurnClock[] clock = new ChurnClock[1];
            List<Thread> starters = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                FetchRequest.Builder request = FetchRequest.builder().bucket(testbed.bucket()).key(testbed.key()).force(true)
                        .destination(files.get(i));
                FetchListener listener = listeners != null ? listeners.apply(i) : null;
                if (listener != null) {
                    request.addListener(listener);
                }
                Broadcast broadcast = broadcasts.get(i);
                FetchRequest built = request.build();
                int node = i;
                CompletableFuture<CompletedFetch> result = new CompletableFuture<>();
                // join() on the future whenComplete returns happens after ended[node] is written.
                futures.add(result.whenComplete((r, e) -> ended[node] = System.nanoTime()));
                Churn.Role role = churn.role(i, n);
                Thread starter = new Thread(() -> {
                    try {
                        startGun.await();
                        if (role == Churn.Role.JOIN) {
                            ChurnClock.await(clock[0].join());
                        }
                        handles[node] = broadcast.fetch(built);
                        if (role == Churn.Role.LEAVE) {
                            clock[0].leave().thenRun(() -> leaveNow(broadcast));
                        }
                        handles[node].completionFuture().whenComplete((r, e) -> {
                            if (e != null) {
                                result.completeExceptionally(e);
                            } else {
                                result.complete(r);
                            }
                        });
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        result.cancel(false);
                    }
                }, "start-node-" + i);
                starter.setDaemon(true);
                starter.start();
                starters.add(starter);
            }
            long start = System.nanoTime();
            startMillis.set(System.currentTimeMillis());
            if (clocks != null && churn.any()) {
                clock[0] = clocks.apply(startMillis.get()).start();
            }
            startGun.countDown();
            for (Thread starter : starters) {
                starter.join();
            }
            awaitAll(futures, handles, options.timeout());
            if (clock[0] != null) {
                clock[0].stop();
            }

            List<NodeResult> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                results.add(result(i, ids.get(i), options.throttleNode() == i, futures.get(i), start, ended[i],
                        testbed.sha256(), handles[i]));
            }
            closeAll(broadcasts);
            broadcasts.clear();
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
            return ClusterTrial.of(trial, results, testbed.size());
        } finally {
            closeAll(broadcasts);
            for (FaultProxy p : proxies) {
                p.close();
            }
            FleetFiles.deleteTree(trialDir);
        }
    }

    private static NodeResult result(int node, String id, boolean throttled, CompletableFuture<CompletedFetch> future,
            long start, long ended, String sha256, FetchHandle handle) {
        CompletedFetch done;
        try {
            done = future.join();
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            LOG.warn("node {} ({}) failed: {}", node, id, cause.toString());
            // What it read from S3 before it failed or left, as its progress says.
            Long fromS3 = handle == null ? null : handle.progress().bytesFromS3();
            return new NodeResult(node, id, throttled, null, null, null, null, fromS3, null, null, false, cause.toString());
        }
        boolean match;
        try {
            match = Sha256.of(done.path()).equals(sha256);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read back node " + node + "'s file " + done.path(), e);
        }
        return new NodeResult(node, id, throttled, SingleCommand.round((ended - start) / 1e9, 3),
                NodeCommand.seconds(done.duration()), NodeCommand.seconds(done.phase1()), NodeCommand.seconds(done.phase2()),
                done.bytesFromS3(), done.bytesFromPeers(), done.piecesStolen(), match, null, done.hedges(),
                AfterLastPiece.of(done));
    }

    /** Closes {@code broadcast} on a thread of its own: a graceful leave mid-run (close waits for it). */
    private static void leaveNow(Broadcast broadcast) {
        Thread t = new Thread(broadcast::close, "leave-node");
        t.setDaemon(true);
        t.start();
    }

    /** Waits for every fetch; past {@code timeout}, cancels those still running. */
    private static void awaitAll(List<CompletableFuture<CompletedFetch>> futures, FetchHandle[] handles, Duration timeout)
            throws InterruptedException {
        CompletableFuture<Void> all = CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
        try {
            all.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // allOf completes only when every fetch has: the failed nodes' results say why
        } catch (TimeoutException e) {
            cancelRunning(handles, timeout);
        }
    }

    /** Cancels the fetches; the handles were written by the starter threads, which have been joined. */
    private static void cancelRunning(FetchHandle[] handles, Duration timeout) {
        LOG.warn("trial still running after {}: cancelling the nodes not done", timeout);
        for (FetchHandle h : handles) {
            if (h != null) {
                h.cancel();
            }
        }
    }

    /** Closes every broadcast at once: each close waits while its node lingers to serve the others. */
    private static void closeAll(List<Broadcast> broadcasts) {
        CompletableFuture<?>[] closing = broadcasts.stream()
                .map(b -> CompletableFuture.runAsync(b::close, runnable -> {
                    Thread t = new Thread(runnable, "close-node");
                    t.setDaemon(true);
                    t.start();
                }))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(closing).exceptionally(e -> {
            LOG.warn("closing a node failed: {}", e.toString());
            return null;
        }).join();
    }
    private static InetSocketAddress upstreamOf(URI uri) {
        if (uri == null || !"http".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("throttling needs a plain http:// endpoint, not " + uri);
        }
        return new InetSocketAddress(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 80);
    }

}
