package io.s3broadcast.s3;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries small requests (HEAD and friends) the way {@link RangeReader} retries ranges: the same
 * classification, the same backoff. Each attempt has a time limit ({@code headTimeout}) kept on the injected
 * scheduler: an attempt that runs out is cancelled, logged once at WARN with the request and the endpoint
 * named, and retried like any transient failure. Cancelling the returned future cancels the request in
 * flight or the retry waiting.
 */
final class Retrier {

    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

    private final ScheduledExecutorService scheduler;
    private final Backoff backoff;
    private final DoubleSupplier random;
    private final int maxAttempts;
    private final Duration attemptTimeout;
    private final String endpoint;

    /**
     * @param attemptTimeout limit on each attempt, from sending the request to its whole response
     * @param endpoint the server asked, as the timeout's error names it
     */
    Retrier(ScheduledExecutorService scheduler, Backoff backoff, DoubleSupplier random, int maxAttempts,
            Duration attemptTimeout, String endpoint) {
        this.scheduler = scheduler;
        this.backoff = backoff;
        this.random = random;
        this.maxAttempts = maxAttempts;
        this.attemptTimeout = attemptTimeout;
        this.endpoint = endpoint;
    }

    /**
     * Sends {@code request} until it succeeds, fails in a way not worth retrying, or runs out of attempts.
     *
     * @param failure turns the last failure and the number of attempts made into the exception the
     *     returned future fails with
     */
    <T> CompletableFuture<T> call(String what, Supplier<CompletableFuture<T>> request,
            BiFunction<Throwable, Integer, Throwable> failure) {
        Call<T> call = new Call<>(what, request, failure);
        call.attempt(1);
        return call.result;
    }

    private final class Call<T> {
        final String what;
        final Supplier<CompletableFuture<T>> request;
        final BiFunction<Throwable, Integer, Throwable> failure;
        final CompletableFuture<T> result = new CompletableFuture<>();
        volatile CompletableFuture<T> inFlight;
        volatile ScheduledFuture<?> pending;

        Call(String what, Supplier<CompletableFuture<T>> request, BiFunction<Throwable, Integer, Throwable> failure) {
            this.what = what;
            this.request = request;
            this.failure = failure;
            result.whenComplete((v, e) -> {
                CompletableFuture<T> f = inFlight;
                ScheduledFuture<?> p = pending;
                if (e != null && f != null) {
                    f.cancel(true);
                }
                if (p != null) {
                    p.cancel(false);
                }
            });
        }

        void attempt(int n) {
            if (result.isDone()) {
                return;
            }
            CompletableFuture<T> f;
            try {
                f = request.get();
            } catch (RuntimeException | Error e) {
                f = CompletableFuture.failedFuture(e);
            }
            inFlight = f;
            if (result.isDone()) {
                f.cancel(true);
                return;
            }
            timeLimited(n, f).whenComplete((v, e) -> {
                try {
                    if (e == null) {
                        result.complete(v);
                    } else {
                        failed(n, e);
                    }
                } catch (RuntimeException | Error t) {
                    result.completeExceptionally(t);
                }
            });
        }

        /**
         * {@code f}'s outcome, or a {@link TransientReadException} naming the request if {@code f} is not done
         * within the attempt timeout; then {@code f} is cancelled, which aborts the request.
         */
        CompletableFuture<T> timeLimited(int n, CompletableFuture<T> f) {
            if (f.isDone()) {
                return f;
            }
            CompletableFuture<T> limited = new CompletableFuture<>();
            long millis = attemptTimeout.toMillis();
            Runnable expire = () -> {
                TransientReadException timeout = new TransientReadException(what + " got no complete response from "
                        + endpoint + " within " + millis + " ms (attempt " + n + " of " + maxAttempts + "); if the"
                        + " server is only slow, raise headTimeout (s3broadcast.headTimeout)");
                if (limited.completeExceptionally(timeout)) {
                    LOG.warn("{}", timeout.getMessage());
                    f.cancel(true);
                }
            };
            ScheduledFuture<?> timer;
            try {
                timer = scheduler.schedule(expire, attemptTimeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                timer = null; // the source is closing; its close cancels the request
            }
            ScheduledFuture<?> t = timer;
            f.whenComplete((v, e) -> {
                if (t != null) {
                    t.cancel(false);
                }
                if (e != null) {
                    limited.completeExceptionally(e);
                } else {
                    limited.complete(v);
                }
            });
            return limited;
        }

        void failed(int n, Throwable e) {
            if (result.isDone()) {
                return;
            }
            if (Failures.classify(e) != Failures.Kind.RETRY || n >= maxAttempts) {
                result.completeExceptionally(failure.apply(Failures.unwrap(e), n));
                return;
            }
            long delay = backoff.delayNanos(n, random.getAsDouble());
            LOG.debug("{} failed (attempt {}), retrying in {} ms: {}", what, n, TimeUnit.NANOSECONDS.toMillis(delay),
                    Failures.describe(e));
            try {
                pending = scheduler.schedule(() -> attempt(n + 1), delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException r) {
                result.completeExceptionally(failure.apply(Failures.unwrap(e), n));
            }
        }
    }
}
