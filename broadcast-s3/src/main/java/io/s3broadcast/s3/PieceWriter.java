package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The body of one ranged GET, as the SDK streams it: each chunk goes to its place in the {@link PieceStore}
 * ({@link RangeBytes}: hashed per piece, gathered into larger writes, each piece recorded when its last byte is
 * written). Demand is one chunk at a time and is renewed only after the chunk is taken in, so memory per
 * connection is one chunk plus a gathering buffer whatever the object's size, and a slow disk slows the socket
 * instead of filling the heap.
 *
 * <p>The response must be exactly the bytes asked for ({@link ResponseCheck}); a body that ends early or has
 * more than was asked for is a {@link TransientReadException}.
 *
 * <p>A range may be <em>cut</em> while it is read ({@link #cut}): the writer then stops at the cut, as if it
 * had asked for nothing more, and the GET is abandoned (the bytes after the cut that already came are dropped).
 * A <em>part</em> (a piece only partly within the writer's bytes, see {@link RangeBytes}) is reported to
 * {@code onPartWritten} once written, and whoever split it completes it.
 *
 * <p>Threads: the SDK calls in on its I/O threads, the watchdog or a cancellation calls {@link #abort}
 * from others. The writes and the piece bookkeeping happen under a lock that is never held while calling
 * out (listener, futures, subscription), so after {@code abort} returns nothing more is written.
 */
final class PieceWriter implements AsyncResponseTransformer<GetObjectResponse, Void>, Subscriber<ByteBuffer> {

    private final PieceStore store;
    private final SourceListener listener;
    private final IntConsumer onPartWritten;
    private final LongConsumer onBytes;
    private final ResponseCheck asked;
    private final Object lock = new Object();
    /** Where the body's bytes go; called under the lock only. */
    private final RangeBytes bytes;

    // guarded by lock
    private boolean finished;
    private Throwable failure;
    private CompletableFuture<Void> result;
    private Subscription subscription;
    /** Bytes received, read without the lock by whoever estimates this range's rate. */
    private volatile long received;

    /**
     * @param start first byte asked for; the first byte of a piece unless the first piece is a part
     * @param end one past the last byte asked for; the end of a piece unless the last piece is a part
     * @param onPieceStored called, under this writer's lock, with each piece recorded in the store and each
     *     part written (the reader's progress)
     * @param onPartWritten called, not under the lock, with each part written
     * @param onBytes called with the count when bytes arrive (0 for the response's headers; feeds the stall
     *     watchdog and the fetch's rate)
     * @param buffers where to borrow the buffer that gathers small chunks into larger writes
     */
    PieceWriter(ObjectInfo object, PieceStore store, SourceListener listener, long start, long end,
            IntConsumer onPieceStored, IntConsumer onPartWritten, LongConsumer onBytes, BufferPool buffers) {
        this.store = store;
        this.listener = listener;
        this.onPartWritten = onPartWritten;
        this.onBytes = onBytes;
        this.asked = new ResponseCheck(object, start, end);
        this.bytes = new RangeBytes(store, buffers, start, end, onPieceStored);
    }

    /**
     * Stops this writer at byte {@code at} instead of its end, if it has not received that far: true when it
     * will stop there (or did already, for an {@code at} it has reached but not passed), false when it has
     * passed {@code at}, finished, or {@code at} is not before where it stops now.
     */
    boolean cut(long at) {
        synchronized (lock) {
            return !finished && bytes.cut(at);
        }
    }

    /** Bytes received so far (of the bytes asked for, also those dropped after a cut). */
    long received() {
        return received;
    }

    /** The byte this writer is at: received and taken in up to here. */
    long position() {
        synchronized (lock) {
            return bytes.position();
        }
    }

    /** The bytes asked for, as {@code bytes a-b} (inclusive, as in HTTP). */
    String range() {
        return asked.range();
    }

    @Override
    public CompletableFuture<Void> prepare() {
        Subscription previous;
        CompletableFuture<Void> r = new CompletableFuture<>();
        synchronized (lock) {
            if (finished) {
                return CompletableFuture.failedFuture(failure);
            }
            // Called again only when a caller's client retries on its own: start the range over.
            previous = subscription;
            subscription = null;
            result = r;
            bytes.restart();
        }
        if (previous != null) {
            previous.cancel();
        }
        return r;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        onBytes.accept(0);
        Throwable problem = asked.problem(response);
        if (problem != null) {
            fail(problem);
        }
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        publisher.subscribe(this);
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        fail(error);
    }

    @Override
    public void onSubscribe(Subscription s) {
        synchronized (lock) {
            if (!finished && subscription == null) {
                subscription = s;
                s = null;
            }
        }
        if (s != null) {
            s.cancel();
            return;
        }
        subscription().request(1);
    }

    @Override
    public void onNext(ByteBuffer chunk) {
        int n = chunk.remaining();
        onBytes.accept(n);
        received += n;
        RangeBytes.Taken taken;
        boolean cutReached = false;
        CompletableFuture<Void> r = null;
        Subscription s;
        Throwable problem = null;
        synchronized (lock) {
            if (finished) {
                return;
            }
            s = subscription;
            try {
                if (n > bytes.remaining()) {
                    throw new TransientReadException("body of " + range() + " of " + asked.objectName()
                            + " has more than the " + bytes.length() + " bytes asked for");
                }
                taken = bytes.take(chunk);
                if (bytes.cutReached()) {
                    cutReached = true;
                    finished = true;
                    r = result;
                    bytes.release();
                }
            } catch (IOException e) {
                taken = null;
                problem = e instanceof TransientReadException ? e
                        : new BroadcastException.DestinationUnusable("cannot write " + range() + " of "
                                + asked.objectName() + " to " + store.tempFile() + ": " + e
                                + "; check free space and the disk", e);
            } catch (RuntimeException e) {
                taken = null;
                problem = e;
            }
        }
        if (problem != null) {
            fail(problem);
            return;
        }
        try {
            listener.bytesReceived(n);
            for (int piece : taken.stored()) {
                listener.pieceStored(piece);
            }
            for (int piece : taken.parts()) {
                onPartWritten.accept(piece);
            }
        } catch (RuntimeException | Error e) {
            if (cutReached) {
                r.completeExceptionally(e);
            }
            fail(new BroadcastException("a SourceListener threw while fetching " + range() + " of "
                    + asked.objectName() + ": " + e, e));
            return;
        }
        if (cutReached) {
            // Everything up to the cut is written: the rest of the GET is not wanted.
            if (s != null) {
                s.cancel();
            }
            r.complete(null);
            return;
        }
        if (s != null) {
            s.request(1);
        }
    }

    @Override
    public void onError(Throwable error) {
        fail(error);
    }

    @Override
    public void onComplete() {
        CompletableFuture<Void> r = null;
        Throwable problem = null;
        synchronized (lock) {
            if (finished) {
                return;
            }
            if (!bytes.complete()) {
                problem = new TransientReadException("body of " + range() + " of " + asked.objectName()
                        + " ended after " + bytes.taken() + " of " + bytes.length() + " bytes");
            } else {
                finished = true;
                r = result;
                bytes.release();
            }
        }
        if (problem != null) {
            fail(problem);
        } else {
            r.complete(null);
        }
    }

    /**
     * Stops this writer: nothing is written after this returns, the body's subscription is cancelled and
     * the transformer's future fails with {@code cause}. Idempotent.
     */
    void abort(Throwable cause) {
        fail(cause);
    }

    private void fail(Throwable cause) {
        Subscription s;
        CompletableFuture<Void> r;
        synchronized (lock) {
            if (finished) {
                return;
            }
            finished = true;
            failure = cause;
            s = subscription;
            r = result;
            bytes.release();
        }
        if (s != null) {
            s.cancel();
        }
        if (r != null) {
            r.completeExceptionally(cause);
        }
    }

    private Subscription subscription() {
        synchronized (lock) {
            return subscription;
        }
    }
}
