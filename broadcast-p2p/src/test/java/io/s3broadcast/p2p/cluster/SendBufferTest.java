package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How a peer connection's send buffer follows the rate it carries pieces at, on fake time. */
class SendBufferTest {

    private static final long MS = 1_000_000L;
    private static final int PIECE = 512 * 1024;

    private final SendBuffer buffer = new SendBuffer();
    private long now = 1_000 * MS;

    /** Pieces of {@code PIECE} bytes, one every {@code gapMs}, for {@code count} pieces; the last answer. */
    private int pieces(int count, long gapMs) {
        int last = 0;
        for (int i = 0; i < count; i++) {
            now += gapMs * MS;
            int grown = buffer.written(PIECE, now);
            if (grown > 0) {
                last = grown;
            }
        }
        return last;
    }

    @Test
    void aConnectionStartsSmall() {
        assertEquals(SendBuffer.INITIAL, buffer.size());
        assertEquals(0, buffer.written(PIECE, now), "the first piece only starts the window");
    }

    @Test
    void aConnectionAtAFewMegabytesASecondKeepsTheSmallBuffer() {
        // 512 KiB every 160 ms: 3.3 MB/s, a connection's share of a 10 MB/s node with three peers; 20 ms of it is 66 KB.
        assertEquals(0, pieces(30, 200));
        assertEquals(SendBuffer.INITIAL, buffer.size());
    }

    @Test
    void aFastConnectionGetsTwentyMillisecondsOfItsRate() {
        // 512 KiB every 5 ms: 105 MB/s; 20 ms of it is 2.1 MB.
        pieces(1, 5);
        int grown = pieces(40, 5);
        assertEquals(2_097_152, grown, 2_000);
        assertEquals(grown, buffer.size());
    }

    @Test
    void theBufferStaysWithinTheMaximumAndShrinksBackWithTheRate() {
        pieces(1, 1);
        pieces(400, 1); // 524 MB/s: 10 MB wanted
        assertEquals(SendBuffer.MAX, buffer.size());
        pieces(60, 5); // 105 MB/s
        assertEquals(2_097_152, buffer.size(), 2_000);
        assertEquals(SendBuffer.INITIAL, pieces(30, 200), "3.3 MB/s: back to the smallest");
        assertEquals(SendBuffer.INITIAL, buffer.size());
    }
}
