package io.s3broadcast.internal;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.ClusterStrategyProvider;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
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

/** A broadcast: one object source (S3 client) and threads shared by its fetches. */
final class DefaultBroadcast implements Broadcast {

    private final Settings settings;
    private final ObjectSource source;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final Set<NodeFetch> running = ConcurrentHashMap.newKeySet();
    private final Set<NodeFetch> lingering = ConcurrentHashMap.newKeySet();
    private ClusterStrategy cluster;
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
        ClusterStrategy clusterStrategy;
        try {
            clusterStrategy = request.strategy().orElse(settings.strategy()).isCluster() ? cluster() : null;
        } catch (RuntimeException e) {
            NodeFetch failed = new NodeFetch(request, settings, source, null, executor,
                    new ProgressTracker(List.copyOf(listeners), settings.ticker()));
            failed.fail(e);
            return failed;
        }
        NodeFetch fetch = new NodeFetch(request, settings, source, clusterStrategy, executor,
                new ProgressTracker(List.copyOf(listeners), settings.ticker()));
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
    public CompletableFuture<List<CompletedFetch>> fetchAll(String bucket, String prefix, Path directory) {
        S3AsyncClient client = source.client().orElse(null);
        if (client == null) {
            return CompletableFuture.failedFuture(new BroadcastException("fetchAll needs an S3 object source that can"
                    + " list keys (io.s3broadcast:broadcast-s3)"));
        }
        Path root = directory.toAbsolutePath().normalize();
        List<String> keys = new ArrayList<>();
        return client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
                .contents()
                .subscribe(o -> {
                    if (!o.key().endsWith("/")) {
                        keys.add(o.key());
                    }
                })
                .exceptionally(e -> {
                    throw new BroadcastException("cannot list s3://" + bucket + "/" + prefix + ": " + e.getMessage(), e);
                })
                .thenCompose(v -> {
                    List<FetchRequest> requests = new ArrayList<>();
                    for (String key : keys) {
                        Path target = root.resolve(key.substring(prefix.length())).normalize();
                        if (!target.startsWith(root) || target.equals(root)) {
                            throw new BroadcastException("s3://" + bucket + "/" + key + " would land outside " + root
                                    + ": fetch it on its own with a destination of your choice");
                        }
                        requests.add(FetchRequest.builder().bucket(bucket).key(key).destination(target).build());
                    }
                    return allOrFirstFailure(requests.stream().map(this::fetch).toList());
                });
    }

    /** The results in order once all are done; the first failure at once, the others then cancelled. */
    private static CompletableFuture<List<CompletedFetch>> allOrFirstFailure(List<FetchHandle> handles) {
        CompletableFuture<List<CompletedFetch>> all = new CompletableFuture<>();
        AtomicInteger left = new AtomicInteger(handles.size());
        for (FetchHandle h : handles) {
            h.completionFuture().whenComplete((r, e) -> {
                if (e != null) {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    if (all.completeExceptionally(cause)) {
                        handles.forEach(FetchHandle::cancel);
                    }
                } else if (left.decrementAndGet() == 0) {
                    all.complete(handles.stream().map(x -> x.completionFuture().join()).toList());
                }
            });
        }
        if (handles.isEmpty()) {
            all.complete(List.of());
        }
        all.whenComplete((r, e) -> {
            if (all.isCancelled()) {
                handles.forEach(FetchHandle::cancel);
            }
        });
        return all;
    }

    /** The cluster strategy, made on first use: it binds the peer server. Null when broadcast-p2p is absent. */
    private synchronized ClusterStrategy cluster() {
        if (!clusterLoaded) {
            clusterLoaded = true;
            Iterator<ClusterStrategyProvider> it = ServiceLoader.load(ClusterStrategyProvider.class).iterator();
            if (it.hasNext()) {
                cluster = it.next().create(settings.cluster(), source.client().orElse(null));
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
        synchronized (this) {
            if (cluster != null) {
                cluster.close();
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
