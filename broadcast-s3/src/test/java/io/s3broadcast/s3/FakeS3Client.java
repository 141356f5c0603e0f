package io.s3broadcast.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesRequest;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An S3 client that answers GETs from a byte array the way a test scripts, on the caller's thread, and
 * honours the body subscriber's demand. Each GET is recorded as a {@link Call}.
 */
final class FakeS3Client implements S3AsyncClient {

    /** What a scripted GET does. */
    sealed interface Behaviour permits Serve, Fail, Silent, Paced {
    }

    /** Answers with the bytes asked for, one chunk every {@code nanosPerChunk} on {@link #pacer}. */
    record Paced(long nanosPerChunk) implements Behaviour {
    }

    /**
     * Answers with the bytes asked for, in chunks; stops after {@code limit} bytes by cutting the connection
     * ({@code thenError}), ending the body early ({@code thenError == null && !stall}) or going silent
     * ({@code stall}).
     */
    record Serve(long limit, Throwable thenError, boolean stall, String contentRange, String eTag) implements Behaviour {
    }

    /** Fails before any byte, as the SDK does for an error status. */
    record Fail(Throwable error) implements Behaviour {
    }

    /** Never answers: no status line, no header, no byte; the request ends only when cancelled. */
    record Silent() implements Behaviour {
    }

    static Behaviour ok() {
        return new Serve(Long.MAX_VALUE, null, false, null, null);
    }

    static Behaviour cutAfter(long bytes) {
        return new Serve(bytes, new IOException("Connection reset by peer"), false, null, null);
    }

    static Behaviour truncateAfter(long bytes) {
        return new Serve(bytes, null, false, null, null);
    }

    static Behaviour stallAfter(long bytes) {
        return new Serve(bytes, null, true, null, null);
    }

    static Behaviour status(int status, String code) {
        return new Fail(S3Exception.builder().statusCode(status)
                .message(code + " (Service: S3, Status Code: " + status + ")")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code + " from the fake").build())
                .build());
    }

    /** One GET as the client saw it. */
    static final class Call {
        final GetObjectRequest request;
        final long start;
        final long end;
        volatile boolean cancelled;
        volatile int maxOutstanding;
        volatile long delivered;

        Call(GetObjectRequest request, long size) {
            this.request = request;
            String[] r = request.range().substring("bytes=".length()).split("-");
            this.start = Long.parseLong(r[0]);
            this.end = Math.min(size, Long.parseLong(r[1]) + 1);
        }
    }

    final byte[] data;
    final String eTag;
    final int chunk;
    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    volatile BiFunction<Call, Integer, Behaviour> script = (c, n) -> ok();
    volatile Function<HeadObjectRequest, CompletableFuture<HeadObjectResponse>> head;
    volatile Function<HeadBucketRequest, CompletableFuture<HeadBucketResponse>> headBucket;
    volatile Function<GetObjectAttributesRequest, CompletableFuture<GetObjectAttributesResponse>> attributes;
    final List<HeadObjectRequest> heads = Collections.synchronizedList(new ArrayList<>());
    /** Where {@link Paced} bodies wait between chunks. */
    volatile java.util.concurrent.ScheduledExecutorService pacer;
    /** GETs whose body is being delivered now, and the most there were at once. */
    final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger maxOpen = new java.util.concurrent.atomic.AtomicInteger();

    FakeS3Client(byte[] data, String eTag, int chunk) {
        this.data = data;
        this.eTag = eTag;
        this.chunk = chunk;
    }

    @Override
    public String serviceName() {
        return "s3";
    }

    final java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void close() {
        closed.incrementAndGet();
    }

    @Override
    public CompletableFuture<HeadObjectResponse> headObject(HeadObjectRequest request) {
        heads.add(request);
        return head.apply(request);
    }

    @Override
    public CompletableFuture<HeadBucketResponse> headBucket(HeadBucketRequest request) {
        return headBucket.apply(request);
    }

    @Override
    public CompletableFuture<GetObjectAttributesResponse> getObjectAttributes(GetObjectAttributesRequest request) {
        return attributes.apply(request);
    }

    @Override
    public <T> CompletableFuture<T> getObject(GetObjectRequest request, AsyncResponseTransformer<GetObjectResponse, T> transformer) {
        Call call = new Call(request, data.length);
        int n;
        synchronized (calls) {
            calls.add(call);
            n = calls.size();
        }
        Behaviour behaviour = script.apply(call, n);
        CompletableFuture<T> prepared = transformer.prepare();
        CompletableFuture<T> returned = new CompletableFuture<>();
        prepared.whenComplete((v, e) -> {
            if (e != null) {
                returned.completeExceptionally(e);
            } else {
                returned.complete(v);
            }
        });
        returned.whenComplete((v, e) -> {
            if (returned.isCancelled()) {
                call.cancelled = true;
            }
        });
        if (behaviour instanceof Fail f) {
            transformer.exceptionOccurred(f.error());
            returned.completeExceptionally(f.error());
            return returned;
        }
        if (behaviour instanceof Silent) {
            return returned;
        }
        if (behaviour instanceof Paced p) {
            transformer.onResponse(GetObjectResponse.builder().contentLength(call.end - call.start)
                    .contentRange("bytes " + call.start + "-" + (call.end - 1) + "/" + data.length).eTag(eTag).build());
            maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
            returned.whenComplete((v, e) -> open.decrementAndGet());
            transformer.onStream(SdkPublisher.adapt(new PacedBody(call, p, returned)));
            return returned;
        }
        Serve s = (Serve) behaviour;
        long length = call.end - call.start;
        transformer.onResponse(GetObjectResponse.builder()
                .contentLength(length)
                .contentRange(s.contentRange() != null ? s.contentRange()
                        : "bytes " + call.start + "-" + (call.end - 1) + "/" + data.length)
                .eTag(s.eTag() != null ? s.eTag() : eTag)
                .build());
        transformer.onStream(SdkPublisher.adapt(new Body(call, s, returned)));
        return returned;
    }

    /** A body that sends one chunk per unit of demand, each after a delay on the pacer. */
    private final class PacedBody implements org.reactivestreams.Publisher<ByteBuffer> {
        final Call call;
        final Paced paced;
        final CompletableFuture<?> returned;

        PacedBody(Call call, Paced paced, CompletableFuture<?> returned) {
            this.call = call;
            this.paced = paced;
            this.returned = returned;
        }

        @Override
        public void subscribe(Subscriber<? super ByteBuffer> s) {
            s.onSubscribe(new Subscription() {
                long position = call.start;
                boolean done;

                @Override
                public void request(long n) {
                    pacer.schedule(this::send, paced.nanosPerChunk(), java.util.concurrent.TimeUnit.NANOSECONDS);
                }

                private void send() {
                    if (done || call.cancelled || returned.isDone()) {
                        return;
                    }
                    if (position >= call.end) {
                        done = true;
                        s.onComplete();
                        return;
                    }
                    int len = (int) Math.min(chunk, call.end - position);
                    ByteBuffer b = ByteBuffer.wrap(data, (int) position, len).slice();
                    position += len;
                    call.delivered += len;
                    s.onNext(b);
                    if (position >= call.end && !done && !call.cancelled) {
                        done = true;
                        s.onComplete();
                    }
                }

                @Override
                public void cancel() {
                    call.cancelled = true;
                    done = true;
                }
            });
        }
    }

    /** The body: one chunk per unit of demand, delivered in a loop rather than by recursion. */
    private final class Body implements org.reactivestreams.Publisher<ByteBuffer> {
        final Call call;
        final Serve serve;
        final CompletableFuture<?> returned;

        Body(Call call, Serve serve, CompletableFuture<?> returned) {
            this.call = call;
            this.serve = serve;
            this.returned = returned;
        }

        @Override
        public void subscribe(Subscriber<? super ByteBuffer> s) {
            s.onSubscribe(new Subscription() {
                long demand;
                boolean emitting;
                boolean done;
                long position = call.start;
                final long stop = serve.limit() >= call.end - call.start ? call.end : call.start + serve.limit();

                @Override
                public void request(long n) {
                    demand += n;
                    call.maxOutstanding = (int) Math.max(call.maxOutstanding, demand);
                    if (emitting) {
                        return;
                    }
                    emitting = true;
                    try {
                        while (demand > 0 && !done && !call.cancelled && !returned.isCancelled()) {
                            if (position >= stop) {
                                if (position == call.end) {
                                    done = true;
                                    s.onComplete();
                                } else if (serve.thenError() != null) {
                                    done = true;
                                    s.onError(serve.thenError());
                                } else if (!serve.stall()) {
                                    done = true;
                                    s.onComplete();
                                }
                                return;
                            }
                            int len = (int) Math.min(chunk, stop - position);
                            ByteBuffer b = ByteBuffer.wrap(data, (int) position, len).slice();
                            position += len;
                            call.delivered += len;
                            demand--;
                            s.onNext(b);
                        }
                    } finally {
                        emitting = false;
                    }
                }

                @Override
                public void cancel() {
                    call.cancelled = true;
                    done = true;
                }
            });
        }
    }
}
