package io.s3broadcast.s3.registry;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

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
