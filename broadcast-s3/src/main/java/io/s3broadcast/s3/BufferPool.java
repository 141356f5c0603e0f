package io.s3broadcast.s3;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Direct buffers in which a {@link WriteGatherer} gathers small body chunks (the Netty client delivers
 * 8 KiB at a time) into fewer, larger writes. Holds at most {@code keep} idle buffers; more are made when
 * needed and left to the garbage collector.
 */
final class BufferPool {

    private final int bufferSize;
    private final ArrayBlockingQueue<ByteBuffer> idle;

    BufferPool(int bufferSize, int keep) {
        this.bufferSize = bufferSize;
        this.idle = new ArrayBlockingQueue<>(Math.max(1, keep));
    }

    int bufferSize() {
        return bufferSize;
    }

    ByteBuffer acquire() {
        ByteBuffer b = idle.poll();
        return b != null ? b : ByteBuffer.allocateDirect(bufferSize);
    }

    void release(ByteBuffer b) {
        b.clear();
        idle.offer(b);
    }
}
