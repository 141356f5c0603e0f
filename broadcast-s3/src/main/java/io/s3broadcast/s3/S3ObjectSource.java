package io.s3broadcast.s3;

import com.google.common.base.Ticker;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ReadOptions;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * The S3 {@link ObjectSource}: one HEAD ({@link ObjectHead}), then many ranged GETs at once
 * ({@link Fetch}, {@link RangeReader}) streaming into the piece store ({@link PieceWriter}).
 *
 * <p>Owns the client it built (closed by {@link #close()}), never one the caller passed in, and a
 * single timer thread for backoffs and stall watchdogs. Closing cancels the fetches still running.
 */
final class S3ObjectSource implements ObjectSource {

    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectSource.class);

    /** Bytes gathered per connection before a write to the store; larger chunks are written as they come. */
    static final int WRITE_BUFFER = 256 << 10;

    private final S3AsyncClient client;
    private final AutoCloseable owned;
    private final SourceConfig config;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Ticker ticker;
    private final DoubleSupplier random;
    private final Backoff backoff;
    private final BufferPool buffers;
    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Builds a client from {@code config} unless it carries one, and a daemon timer thread, which then pays the
     * first request's one-time costs ({@link FirstRequestCosts}) while the caller goes on.
     */
    static S3ObjectSource create(SourceConfig config) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "s3broadcast-s3-timer");
            t.setDaemon(true);
            return t;
        });
        // Every GET arms a watchdog that is nearly always cancelled; drop those at once.
        timer.setRemoveOnCancelPolicy(true);
        try {
            S3AsyncClient client = config.client();
            AutoCloseable owned = null;
            if (client == null) {
                S3Clients.Built built = S3Clients.build(config);
                client = built.client();
                owned = built.closer();
            }
            S3ObjectSource source = new S3ObjectSource(client, owned, config, timer, true, Ticker.systemTicker(),
                    () -> ThreadLocalRandom.current().nextDouble(), WRITE_BUFFER);
            timer.execute(FirstRequestCosts::pay);
            return source;
        } catch (RuntimeException | Error e) {
            timer.shutdownNow();
            throw e;
        }
    }

    /**
     * @param owned closes the client and what it runs on when this source closes; null for a client the
     *     caller owns
     */
    S3ObjectSource(S3AsyncClient client, AutoCloseable owned, SourceConfig config, ScheduledExecutorService scheduler,
            boolean ownsScheduler, Ticker ticker, DoubleSupplier random, int writeBuffer) {
        this.client = Objects.requireNonNull(client, "client");
        this.owned = owned;
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.ownsScheduler = ownsScheduler;
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.random = Objects.requireNonNull(random, "random");
        this.backoff = new Backoff(config.initialBackoff(), config.maxBackoff());
        this.buffers = new BufferPool(writeBuffer, config.connections());
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String bucket, String key) {
        return head(bucket, key, false, ReadOptions.NONE);
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String bucket, String key, boolean eTagDigest) {
        return head(bucket, key, eTagDigest, ReadOptions.NONE);
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String bucket, String key, boolean eTagDigest, ReadOptions options) {
        try {
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(key, "key");
            if (closed) {
                return closedFailure();
            }
            Retrier retrier = new Retrier(scheduler, backoff, random, config.maxAttempts(), config.headTimeout(),
                    endpoint());
            return track(new ObjectHead(client, retrier, config.headTimeout(), config.connections(), options)
                    .head(bucket, key, eTagDigest));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store, SourceListener listener) {
        return fetch(object, pieces, store, listener, new RangeReads(config.connections(), config.rangeSize()));
    }

    /**
     * As the four-argument fetch with {@code reads.connections()} lanes to begin with, tuned within
     * {@code reads.maxConnections()} (never more than the configured connections).
     */
    @Override
    public CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store, SourceListener listener,
            RangeReads reads) {
        try {
            Objects.requireNonNull(reads, "reads");
            Objects.requireNonNull(object, "object");
            Objects.requireNonNull(pieces, "pieces");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(listener, "listener");
            if (closed) {
                return closedFailure();
            }
            ReadContext ctx = new ReadContext(client, object, store, listener, scheduler, ticker, random, backoff,
                    config.maxAttempts(), config.firstByteTimeout(), config.stallTimeout(), buffers);
            return track(new Fetch(ctx, pieces, reads, config.connections()).start());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * One small ranged GET pinned to the ETag with {@code If-Match}, retried like a HEAD (each attempt limited
     * by {@code headTimeout}); the bytes count as read from S3 only for the caller, who asked for them.
     */
    @Override
    public CompletableFuture<ByteBuffer> read(ObjectInfo object, long offset, int length) {
        try {
            Objects.requireNonNull(object, "object");
            if (offset < 0 || length <= 0 || offset + length > object.size()) {
                throw new IllegalArgumentException("bytes " + offset + "+" + length + " are not within the "
                        + object.size() + " bytes of s3://" + object.bucket() + "/" + object.key());
            }
            if (closed) {
                return closedFailure();
            }
            String what = "bytes " + offset + "-" + (offset + length - 1);
            Retrier retrier = new Retrier(scheduler, backoff, random, config.maxAttempts(), config.headTimeout(),
                    endpoint());
            return track(retrier.call("GET " + what + " of s3://" + object.bucket() + "/" + object.key(),
                    () -> client.getObject(S3ReadOptions.apply(GetObjectRequest.builder()
                                    .bucket(object.bucket()).key(object.key())
                                    .range("bytes=" + offset + "-" + (offset + length - 1))
                                    .ifMatch(object.eTag()), object.options()).build(),
                            AsyncResponseTransformer.toBytes())
                            .thenApply(r -> {
                                ByteBuffer bytes = r.asByteBuffer();
                                if (bytes.remaining() != length) {
                                    throw new CompletionException(new TransientReadException("GET " + what
                                            + " of s3://" + object.bucket() + "/" + object.key() + " returned "
                                            + bytes.remaining() + " bytes"));
                                }
                                return bytes;
                            }),
                    (e, n) -> Failures.toBroadcastException(Failures.classify(e), e, object.bucket(), object.key(),
                            object.eTag(), what, n)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The server this source asks, as errors name it: the endpoint override, else AWS S3 and its region. */
    private String endpoint() {
        if (config.endpoint() != null) {
            return config.endpoint().toString();
        }
        try {
            var c = client.serviceClientConfiguration();
            return c.endpointOverride().map(Object::toString)
                    .orElseGet(() -> "AWS S3" + (c.region() != null ? " in " + c.region() : ""));
        } catch (RuntimeException e) {
            return "AWS S3";
        }
    }

    /** The client this source reads with, shared with an {@code s3://} registry; still owned by this source. */
    @Override
    public java.util.Optional<S3AsyncClient> client() {
        return java.util.Optional.of(client);
    }

    @Override
    public void close() {
        closed = true;
        for (CompletableFuture<?> f : running) {
            f.cancel(true);
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        if (owned != null) {
            try {
                owned.close();
            } catch (Exception e) {
                LOG.warn("closing the S3 client failed", e);
            }
        }
    }

    private <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        running.add(f);
        f.whenComplete((v, e) -> running.remove(f));
        if (closed) {
            f.cancel(true);
        }
        return f;
    }

    private static <T> CompletableFuture<T> closedFailure() {
        return CompletableFuture.failedFuture(new BroadcastException("the S3 source is closed"));
    }
}
