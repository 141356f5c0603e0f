package io.s3broadcast.internal;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** A broadcast: one object source (S3 client) and threads shared by its fetches. */
final class DefaultBroadcast implements Broadcast {

    private final Settings settings;
    private final ObjectSource source;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final Set<FetchHandle> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    DefaultBroadcast(Settings settings) {
        this.settings = settings;
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
        FlatTreeFetch fetch = new FlatTreeFetch(request, settings, source, executor,
                new ProgressTracker(List.copyOf(listeners), settings.ticker()));
        if (closed) {
            fetch.fail(new BroadcastException("this Broadcast is closed; build a new one to fetch " + request));
            return fetch;
        }
        running.add(fetch);
        fetch.completionFuture().whenComplete((r, e) -> running.remove(fetch));
        fetch.start();
        return fetch;
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
