package io.s3broadcast.s3;

import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes a range's bytes to the {@link PieceStore} in order from its first byte, gathering small body chunks
 * (such as the Netty client's 8 KiB ones) in one pooled buffer of {@link BufferPool#bufferSize()} bytes so the
 * disk sees fewer, larger writes; a chunk at least that large while nothing is gathered is written as it is.
 * Not thread-safe: its {@link PieceWriter} calls it under its lock.
 */
final class WriteGatherer {

    private final PieceStore store;
    private final BufferPool buffers;
    /** Bytes written to the store up to here; those after it are in {@code pending}. */
    private long written;
    private ByteBuffer pending;

    /** @param start the position in the object of the first byte to be added */
    WriteGatherer(PieceStore store, BufferPool buffers, long start) {
        this.store = store;
        this.buffers = buffers;
        this.written = start;
    }

    /** Drops what is gathered and not written, and starts again at {@code start}. */
    void restart(long start) {
        written = start;
        if (pending != null) {
            pending.clear();
        }
    }

    /** Adds the next bytes, writing the gathered buffer out whenever it fills. */
    void add(ByteBuffer bytes) throws IOException {
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

    /** Writes out what is gathered: every byte added so far is then in the store. */
    void flush() throws IOException {
        if (pending != null && pending.position() > 0) {
            pending.flip();
            writeOut(pending);
            pending.clear();
        }
    }

    /** Gives the buffer back to the pool, dropping what is gathered and not written. */
    void release() {
        if (pending != null) {
            buffers.release(pending);
            pending = null;
        }
    }

    private void writeOut(ByteBuffer bytes) throws IOException {
        int n = bytes.remaining();
        store.write(written, bytes);
        written += n;
    }
}
