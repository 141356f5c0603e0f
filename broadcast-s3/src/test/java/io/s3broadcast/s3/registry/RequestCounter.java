package io.s3broadcast.s3.registry;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * Counts the HTTP requests an S3 client sends, by kind (GET, PUT, LIST, DELETE, HEAD, POST) and by kind and status
 * ({@code "GET 304"}), and how many are in flight, so a test can wait until the fleet is quiet.
 */
final class RequestCounter implements ExecutionInterceptor {

    private static final ExecutionAttribute<String> KIND = new ExecutionAttribute<>("s3broadcast.requestKind");

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final Map<String, Long> byKind = new TreeMap<>(); // guarded by lock
    private final Map<String, Long> byStatus = new TreeMap<>(); // guarded by lock
    private int inFlight; // guarded by lock

    static String kind(SdkHttpRequest request) {
        String method = request.method().name();
        if (method.equals("GET") && request.rawQueryParameters().containsKey("list-type")) {
            return "LIST";
        }
        return method;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        started();
    }

    /**
     * {@code client}'s GETs and PUTs (all a registry sends), each in flight until the caller's stages on its future
     * have run. The SDK calls {@link #afterExecution} before it completes the future, and a registry clears its
     * polling or renewing flag (or sends the write of a read-modify-write) in those stages: idle on this count alone,
     * a test could advance fake time onto a flag still set, and that node skipped a poll or a renewal.
     */
    S3AsyncClient heldUntilHandled(S3AsyncClient client) {
        return new S3AsyncClient() {
            @Override
            public <T> CompletableFuture<T> getObject(GetObjectRequest request,
                    AsyncResponseTransformer<GetObjectResponse, T> transformer) {
                return held(() -> client.getObject(request, transformer));
            }

            @Override
            public CompletableFuture<PutObjectResponse> putObject(PutObjectRequest request, AsyncRequestBody body) {
                return held(() -> client.putObject(request, body));
            }

            @Override
            public String serviceName() {
                return client.serviceName();
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    private <T> CompletableFuture<T> held(Supplier<CompletableFuture<T>> call) {
        started();
        CompletableFuture<T> sent;
        try {
            sent = call.get();
        } catch (RuntimeException e) {
            finished();
            throw e;
        }
        CompletableFuture<T> handled = new CompletableFuture<>();
        sent.whenComplete((r, failure) -> {
            try {
                if (failure == null) {
                    handled.complete(r);
                } else {
                    handled.completeExceptionally(failure);
                }
            } finally {
                finished();
            }
        });
        return handled;
    }

    private void started() {
        lock.lock();
        try {
            inFlight++;
        } finally {
            lock.unlock();
        }
    }

    /** Each attempt is a request S3 bills, retries by the SDK included. */
    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String kind = kind(context.httpRequest());
        attributes.putAttribute(KIND, kind);
        lock.lock();
        try {
            byKind.merge(kind, 1L, Long::sum);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        String status = attributes.getAttribute(KIND) + " " + context.httpResponse().statusCode();
        lock.lock();
        try {
            byStatus.merge(status, 1L, Long::sum);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        finished();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        finished();
    }

    private void finished() {
        lock.lock();
        try {
            inFlight--;
            if (inFlight <= 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no request is in flight. */
    void awaitIdle(Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (inFlight > 0) {
                if (left <= 0) {
                    throw new AssertionError(inFlight + " S3 requests still in flight after " + timeout);
                }
                left = idle.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    Map<String, Long> byKind() {
        lock.lock();
        try {
            return new TreeMap<>(byKind);
        } finally {
            lock.unlock();
        }
    }

    Map<String, Long> byStatus() {
        lock.lock();
        try {
            return new TreeMap<>(byStatus);
        } finally {
            lock.unlock();
        }
    }

    long count(String kind) {
        return byKind().getOrDefault(kind, 0L);
    }

    void reset() {
        lock.lock();
        try {
            byKind.clear();
            byStatus.clear();
        } finally {
            lock.unlock();
        }
    }

}
