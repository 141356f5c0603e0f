package io.s3broadcast.internal;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.ClusterStrategyProvider;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import io.s3broadcast.spi.PieceLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.S3Object;

/** A broadcast: one object source (S3 client) and threads shared by its fetches. */
final class DefaultBroadcast implements Broadcast {

    /** How long {@link #close()} waits for a cluster strategy still being made, to close it. */
    private static final long CLUSTER_CLOSE_WAIT_SECONDS = 10;

    private final Settings settings;
    private final ObjectSource source;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final Set<NodeFetch> running = ConcurrentHashMap.newKeySet();
    private final Set<NodeFetch> lingering = ConcurrentHashMap.newKeySet();
    /** The cluster strategy, started on first use (null when none was given and broadcast-p2p is absent). */
    private CompletableFuture<ClusterStrategy> cluster;
    private boolean clusterLoaded;
    private volatile boolean closed;

    DefaultBroadcast(Settings settings) {
        this.settings = settings;
        if (settings.cluster().registry() != null) {
            Settings.requireRegistryProvider(settings.cluster().registry());
        }
        this.source = loadProvider().create(settings.source());
        this.ownsExecutor = settings.executor() == null;
        this.executor = ownsExecutor ? Executors.newCachedThreadPool(daemonThreads()) : settings.executor();
    }

    static ObjectSourceProvider loadProvider() {
        Iterator<ObjectSourceProvider> it = ServiceLoader.load(ObjectSourceProvider.class).iterator();
        if (!it.hasNext()) {
            throw new BroadcastException("no ObjectSource is on the classpath: add the io.s3broadcast:broadcast-s3"
                    + " dependency next to broadcast-core");
        }
        return it.next();
    }

    @Override
    public FetchHandle fetch(FetchRequest request) {
        List<FetchListener> listeners = new ArrayList<>(settings.listeners());
        listeners.addAll(request.listeners());
        return start(request, new ProgressTracker(List.copyOf(listeners), settings.ticker()));
    }

    private NodeFetch start(FetchRequest request, ProgressTracker tracker) {
        CompletableFuture<ClusterStrategy> clusterStrategy;
        try {
            clusterStrategy = request.strategy().orElse(settings.strategy()).isCluster() ? cluster() : null;
        } catch (RuntimeException e) {
            NodeFetch failed = new NodeFetch(request, settings, source, null, executor, tracker);
            failed.fail(e);
            return failed;
        }
        NodeFetch fetch = new NodeFetch(request, settings, source, clusterStrategy, executor, tracker);
        if (closed) {
            fetch.fail(new BroadcastException("this Broadcast is closed; build a new one to fetch " + request));
            return fetch;
        }
        running.add(fetch);
        lingering.add(fetch);
        fetch.completionFuture().whenComplete((r, e) -> {
            running.remove(fetch);
            fetch.finished().whenComplete((v, x) -> lingering.remove(fetch));
        });
        fetch.start();
        return fetch;
    }

    @Override
    public FetchAllHandle fetchAll(String bucket, String prefix, Path directory) {
        BatchFetch batch = new BatchFetch(new ProgressTracker(settings.listeners(), settings.ticker()));
        S3AsyncClient client = source.client().orElse(null);
        if (client == null) {
            batch.fail(new BroadcastException("fetchAll needs an S3 object source that can list keys"
                    + " (io.s3broadcast:broadcast-s3)"));
            return batch;
        }
        Path root = directory.toAbsolutePath().normalize();
        List<S3Object> objects = new ArrayList<>();
        client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
                .contents()
                .subscribe(o -> {
                    if (!o.key().endsWith("/")) {
                        objects.add(o);
                    }
                })
                .whenComplete((v, e) -> {
                    if (e != null) {
                        batch.fail(new BroadcastException("cannot list s3://" + bucket + "/" + prefix + ": "
                                + e.getMessage(), e));
                        return;
                    }
                    try {
                        batch.await(startAll(batch, bucket, prefix, root, objects));
                    } catch (RuntimeException x) {
                        batch.fail(x);
                    }
                });
        return batch;
    }

    /** One fetch per listed object, each counted by the batch's tracker; nothing starts if a key is refused. */
    private List<NodeFetch> startAll(BatchFetch batch, String bucket, String prefix, Path root, List<S3Object> objects) {
        List<FetchRequest> requests = new ArrayList<>();
        List<PieceLayout> listed = new ArrayList<>();
        for (S3Object o : objects) {
            Path target = root.resolve(o.key().substring(prefix.length())).normalize();
            if (!target.startsWith(root) || target.equals(root)) {
                throw new BroadcastException("s3://" + bucket + "/" + o.key() + " would land outside " + root
                        + ": fetch it on its own with a destination of your choice");
            }
            requests.add(FetchRequest.builder().bucket(bucket).key(o.key()).destination(target).build());
            listed.add(new PieceLayout(o.size(), settings.pieceSize(o.size(), settings.strategy())));
        }
        if (batch.isDone()) {
            return List.of();
        }
        ProgressTracker total = batch.tracker();
        total.initiated(listed.stream().mapToLong(PieceLayout::objectSize).sum(),
                listed.stream().mapToInt(PieceLayout::pieceCount).sum());
        List<NodeFetch> fetches = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            fetches.add(start(requests.get(i), total.part(List.of(), listed.get(i))));
        }
        return fetches;
    }

    /**
     * The cluster strategy, made on first use: null when none was given and broadcast-p2p is absent (known at once),
     * else a future of it, made on the executor. Making it binds the peer server and starts its threads, which the
     * first fetch's HEAD does not wait for: the fetch waits for both (a failure to make it fails every cluster
     * fetch of this Broadcast, with its cause).
     */
    private synchronized CompletableFuture<ClusterStrategy> cluster() {
        if (!clusterLoaded) {
            clusterLoaded = true;
            ClusterStrategyProvider provider = settings.clusterProvider();
            if (provider == null) {
                Iterator<ClusterStrategyProvider> it = ServiceLoader.load(ClusterStrategyProvider.class).iterator();
                provider = it.hasNext() ? it.next() : null;
            }
            if (provider != null) {
                ClusterStrategyProvider p = provider;
                cluster = CompletableFuture.supplyAsync(() -> p.create(settings.cluster(), source.client().orElse(null)),
                        executor);
            }
        }
        return cluster;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (FetchHandle f : running) {
            f.cancel();
        }
        // Complete nodes keep serving slower peers for the linger time (ended early once every peer is done).
        CompletableFuture<?>[] lingers = lingering.stream().map(NodeFetch::finished).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(lingers).get(settings.cluster().linger().toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // close anyway
        }
        CompletableFuture<ClusterStrategy> made;
        synchronized (this) {
            made = cluster;
        }
        if (made != null) {
            try {
                made.get(CLUSTER_CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                made.thenAccept(ClusterStrategy::close); // never made, or made later: closed once it is
            }
        }
        source.close();
        if (ownsExecutor) {
            executor.shutdown();
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "s3broadcast-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
