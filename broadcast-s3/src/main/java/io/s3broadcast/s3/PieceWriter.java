package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import java.security.MessageDigest;
import io.s3broadcast.spi.Sha256;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The body of one ranged GET, streamed to its place in the {@link PieceStore} as it arrives: each chunk is
 * fed to the CRC32C of the piece it belongs to and written at its position (small chunks, such as the
 * Netty client's 8 KiB ones, are first gathered in one pooled buffer of {@link BufferPool#bufferSize()}
 * bytes so the disk sees fewer, larger writes); when a piece's last byte is written the piece is recorded
 * in the store with its CRC32C. Demand is one chunk at a time and is renewed only after the chunk is
 * taken in, so memory per connection is one chunk plus the buffer whatever the object's size, and a slow
 * disk slows the socket instead of filling the heap.
 *
 * <p>The response must be exactly the bytes asked for: its Content-Range and Content-Length are checked,
 * a body that ends early is a {@link TransientReadException}, and an ETag or object size other than the
 * HEAD's is {@link BroadcastException.ObjectChanged}.
 *
 * <p>A range may be <em>cut</em> while it is read ({@link #cut}): the writer then stops at the cut, as if it
 * had asked for nothing more, and the GET is abandoned (the bytes after the cut that already came are dropped).
 * A piece only partly within the writer's bytes (the first one of a range that starts within a piece, the
 * last one of a range cut within a piece) is a <em>part</em>: its bytes are written but it is neither hashed
 * nor recorded; it is reported to {@code onPartWritten} once written, and whoever split it completes it.
 *
 * <p>Threads: the SDK calls in on its I/O threads, the watchdog or a cancellation calls {@link #abort}
 * from others. The writes and the piece bookkeeping happen under a lock that is never held while calling
 * out (listener, futures, subscription), so after {@code abort} returns nothing more is written.
 */
final class PieceWriter implements AsyncResponseTransformer<GetObjectResponse, Void>, Subscriber<ByteBuffer> {

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");

    private final ObjectInfo object;
    private final PieceStore store;
    private final PieceLayout layout;
    private final SourceListener listener;
    private final long start;
    private final long end;
    private final IntConsumer onPieceStored;
    private final IntConsumer onPartWritten;
    private final LongConsumer onBytes;
    private final BufferPool buffers;
    private final CRC32C crc = new CRC32C();
    /** The SHA-256 of each piece as it arrives, when the store keeps digests (a cluster broadcast); else null. */
    private final MessageDigest sha256;
    private final Object lock = new Object();

    // guarded by lock
    private boolean finished;
    private Throwable failure;
    private CompletableFuture<Void> result;
    private Subscription subscription;
    /** Bytes received up to here. */
    private long position;
    /** Bytes written to the store up to here; those in between are in {@code pending}. */
    private long written;
    private ByteBuffer pending;
    /** Where this writer stops: {@code end}, or earlier once cut. */
    private long cut;
    /** Parts the last chunk finished; read right after {@link #write} under the lock. */
    private int[] parts = new int[0];
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
        this.object = object;
        this.store = store;
        this.layout = store.layout();
        this.listener = listener;
        this.start = start;
        this.end = end;
        this.onPieceStored = onPieceStored;
        this.onPartWritten = onPartWritten;
        this.cut = end;
        this.onBytes = onBytes;
        this.buffers = buffers;
        this.position = start;
        this.written = start;
        this.sha256 = store.keepsDigests() ? Sha256.newDigest() : null;
    }

    /**
     * Stops this writer at byte {@code at} instead of its end, if it has not received that far: true when it
     * will stop there (or did already, for an {@code at} it has reached but not passed), false when it has
     * passed {@code at}, finished, or {@code at} is not before where it stops now.
     */
    boolean cut(long at) {
        synchronized (lock) {
            if (finished || at <= position || at >= cut || at <= start) {
                return false;
            }
            cut = at;
            return true;
        }
    }

    /** Bytes received so far (of the bytes asked for, also those dropped after a cut). */
    long received() {
        return received;
    }

    /** The byte this writer is at: received and taken in up to here. */
    long position() {
        synchronized (lock) {
            return position;
        }
    }

    /** The bytes asked for, as {@code bytes a-b} (inclusive, as in HTTP). */
    String range() {
        return "bytes " + start + "-" + (end - 1);
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
            position = start;
            written = start;
            if (pending != null) {
                pending.clear();
            }
            crc.reset();
            if (sha256 != null) {
                sha256.reset();
            }
        }
        if (previous != null) {
            previous.cancel();
        }
        return r;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        onBytes.accept(0);
        Throwable problem = check(response);
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
        int bytes = chunk.remaining();
        onBytes.accept(bytes);
        received += bytes;
        int[] stored;
        int[] partsDone = null;
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
                stored = write(chunk);
                partsDone = parts;
                parts = new int[0];
                if (position == cut && cut < end) {
                    cutReached = true;
                    finished = true;
                    r = result;
                    releaseBuffer();
                }
            } catch (IOException e) {
                stored = null;
                problem = e instanceof TransientReadException ? e
                        : new BroadcastException.DestinationUnusable("cannot write " + range() + " of " + objectName()
                                + " to " + store.tempFile() + ": " + e + "; check free space and the disk", e);
            } catch (RuntimeException e) {
                stored = null;
                problem = e;
            }
        }
        if (problem != null) {
            fail(problem);
            return;
        }
        try {
            listener.bytesReceived(bytes);
            for (int piece : stored) {
                listener.pieceStored(piece);
            }
            for (int piece : partsDone) {
                onPartWritten.accept(piece);
            }
        } catch (RuntimeException | Error e) {
            if (cutReached) {
                r.completeExceptionally(e);
            }
            fail(new BroadcastException("a SourceListener threw while fetching " + range() + " of " + objectName() + ": " + e, e));
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
            if (position != end) {
                problem = new TransientReadException("body of " + range() + " of " + objectName() + " ended after "
                        + (position - start) + " of " + (end - start) + " bytes");
            } else {
                finished = true;
                r = result;
                releaseBuffer();
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
            releaseBuffer();
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

    /**
     * Takes in a chunk: feeds each piece's CRC32C, gathers the bytes into larger writes, and records each
     * piece the chunk completes once its last bytes are written. Returns the pieces new to the store.
     */
    private int[] write(ByteBuffer chunk) throws IOException {
        if (chunk.remaining() > end - position) {
            throw new TransientReadException("body of " + range() + " of " + objectName() + " has more than the "
                    + (end - start) + " bytes asked for");
        }
        int[] stored = new int[0];
        while (chunk.hasRemaining() && position < cut) {
            int piece = layout.pieceAt(position);
            long pieceStart = layout.offset(piece);
            long pieceEnd = pieceStart + layout.length(piece);
            // A piece this writer has from its first byte is hashed; the first piece of a range that starts
            // within it is a part.
            boolean whole = pieceStart >= start;
            long stop = Math.min(pieceEnd, cut);
            int take = (int) Math.min(chunk.remaining(), stop - position);
            ByteBuffer slice = chunk.slice();
            slice.limit(take);
            if (whole) {
                crc.update(slice.duplicate());
                if (sha256 != null) {
                    sha256.update(slice.duplicate());
                }
            }
            gather(slice);
            chunk.position(chunk.position() + take);
            position += take;
            if (position == pieceEnd && whole) {
                flush();
                int value = (int) crc.getValue();
                crc.reset();
                byte[] digest = sha256 == null ? null : sha256.digest();
                if (store.completePiece(piece, value, digest)) {
                    stored = append(stored, piece);
                }
                onPieceStored.accept(piece);
            } else if (position == stop) {
                // The end of a part: written, for whoever split the piece to complete.
                flush();
                crc.reset();
                if (sha256 != null) {
                    sha256.reset();
                }
                parts = append(parts, piece);
                onPieceStored.accept(piece);
            }
        }
        // What is left is after the cut: dropped.
        chunk.position(chunk.limit());
        return stored;
    }

    /** Adds bytes after {@code position} to the pending buffer, writing it out whenever it fills. */
    private void gather(ByteBuffer bytes) throws IOException {
        if (pending == null) {
            if (bytes.remaining() >= buffers.bufferSize()) {
                writeOut(bytes);
                return;
            }
            pending = buffers.acquire();
        }
        while (bytes.hasRemaining()) {
            if (pending.position() == 0 && bytes.remaining() >= pending.capacity()) {
                writeOut(bytes);
                return;
            }
            int n = Math.min(bytes.remaining(), pending.remaining());
            ByteBuffer part = bytes.slice();
            part.limit(n);
            pending.put(part);
            bytes.position(bytes.position() + n);
            if (!pending.hasRemaining()) {
                flush();
            }
        }
    }

    private void flush() throws IOException {
        if (pending != null && pending.position() > 0) {
            pending.flip();
            writeOut(pending);
            pending.clear();
        }
    }

    private void writeOut(ByteBuffer bytes) throws IOException {
        int n = bytes.remaining();
        store.write(written, bytes);
        written += n;
    }

    private void releaseBuffer() {
        if (pending != null) {
            buffers.release(pending);
            pending = null;
        }
    }

    /** Checks that a response carries the bytes asked for of the object the HEAD saw; null when it does. */
    private Throwable check(GetObjectResponse response) {
        long asked = end - start;
        String eTag = response.eTag();
        if (eTag != null && !unquote(eTag).equals(unquote(object.eTag()))) {
            return new BroadcastException.ObjectChanged(objectName() + " changed while it was being fetched: " + range()
                    + " came with ETag " + eTag + ", the HEAD said " + object.eTag() + "; fetch again to get the new version",
                    null);
        }
        String contentRange = response.contentRange();
        if (contentRange == null) {
            if (!(start == 0 && end == object.size())) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has no Content-Range");
            }
        } else {
            Matcher m = CONTENT_RANGE.matcher(contentRange.trim());
            if (!m.matches()) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has Content-Range " + contentRange);
            }
            if (!m.group(3).equals("*") && Long.parseLong(m.group(3)) != object.size()) {
                return new BroadcastException.ObjectChanged(objectName() + " changed while it was being fetched: it is now "
                        + m.group(3) + " bytes, the HEAD said " + object.size() + "; fetch again to get the new version", null);
            }
            if (Long.parseLong(m.group(1)) != start || Long.parseLong(m.group(2)) != end - 1) {
                return new TransientReadException("asked for " + range() + " of " + objectName()
                        + ", the response has Content-Range " + contentRange);
            }
        }
        Long length = response.contentLength();
        if (length != null && length != asked) {
            return new TransientReadException("asked for " + range() + " (" + asked + " bytes) of " + objectName()
                    + ", the response has Content-Length " + length);
        }
        return null;
    }

    private String objectName() {
        return "s3://" + object.bucket() + "/" + object.key();
    }

    static String unquote(String eTag) {
        String t = eTag.trim();
        if (t.startsWith("W/")) {
            t = t.substring(2);
        }
        if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
            t = t.substring(1, t.length() - 1);
        }
        return t;
    }

    private static int[] append(int[] a, int v) {
        int[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }
}
