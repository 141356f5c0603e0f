package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {

    private static final int MAX_FRAME = 1 << 20;

    @Test
    void anAuthenticatedPeersIncompleteFrameGetsRoomForAllOfItAtOnce() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(2048);
        try {
            in.writeZero(1500);
            in.readerIndex(100);

            // 1,400 bytes held of a 262,148-byte frame: room for the 260,748 missing after the writer index.
            assertThat(FrameDecoder.reservation(in, 262_148, true)).isEqualTo(1500 + 260_748);
        } finally {
            in.release();
        }
    }

    @Test
    void noRoomIsMadeForAStrangerForAFrameThatFitsOrForACumulationAnEarlierFrameStillShares() {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(2048);
        try {
            in.writeZero(1000);

            assertThat(FrameDecoder.reservation(in, 262_148, false)).as("not authenticated").isZero();
            assertThat(FrameDecoder.reservation(in, 2048, true)).as("fits").isZero();
            ByteBuf slice = in.retainedSlice(0, 10);
            try {
                assertThat(FrameDecoder.reservation(in, 262_148, true)).as("shared").isZero();
            } finally {
                slice.release();
            }
            assertThat(FrameDecoder.reservation(in.asReadOnly(), 262_148, true)).as("read-only").isZero();
        } finally {
            in.release();
        }
    }

    @Test
    void framesSplitIntoSmallReadsArriveWholeBeforeAndAfterTheHandshake() {
        for (boolean handshaking : new boolean[] {true, false}) {
            EmbeddedChannel ch = new EmbeddedChannel();
            ch.pipeline().addLast(new FrameDecoder(MAX_FRAME));
            if (handshaking) {
                ch.pipeline().addLast(PeerPipeline.HANDSHAKE, new ChannelInboundHandlerAdapter());
            }
            byte[] big = new byte[300_000];
            new Random(7).nextBytes(big);
            ByteBuf wire = Unpooled.buffer();
            wire.writeInt(big.length).writeBytes(big).writeInt(3).writeBytes(new byte[] {1, 2, 3});
            while (wire.isReadable()) {
                ch.writeInbound(wire.readRetainedSlice(Math.min(1448, wire.readableBytes())));
            }
            wire.release();

            ByteBuf first = ch.readInbound();
            ByteBuf second = ch.readInbound();
            try {
                assertThat(ByteBufUtil.getBytes(first)).as("handshaking " + handshaking).isEqualTo(big);
                assertThat(ByteBufUtil.getBytes(second)).containsExactly(1, 2, 3);
            } finally {
                first.release();
                second.release();
            }
            assertThat((Object) ch.readInbound()).isNull();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void anAuthenticatedChannelInsideALongFrameStopsReadingUntilABatchShouldBeIn() {
        AtomicLong clock = new AtomicLong(1L << 40);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(new FrameDecoder(MAX_FRAME, ReadPacing.on(clock::get)));
        ByteBuf wire = Unpooled.buffer();
        wire.writeInt(300_000).writeZero(300_000);

        ch.writeInbound(wire.readRetainedSlice(10_000));
        assertThat(ch.config().isAutoRead()).as("no rate known yet").isTrue();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
        ch.writeInbound(wire.readRetainedSlice(10_000));
        // 200 kB/s: a batch takes longer than the longest wait.
        assertThat(ch.config().isAutoRead()).isFalse();

        ch.advanceTimeBy(ReadPacing.MAX_WAIT_NANOS - 1, TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.config().isAutoRead()).isFalse();
        ch.advanceTimeBy(1, TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.config().isAutoRead()).as("reads again after the wait").isTrue();

        clock.addAndGet(ReadPacing.MAX_WAIT_NANOS);
        ch.writeInbound(wire.readRetainedSlice(wire.readableBytes()));
        ByteBuf frame = ch.readInbound();
        try {
            assertThat(frame.readableBytes()).isEqualTo(300_000);
        } finally {
            frame.release();
        }
        assertThat(ch.config().isAutoRead()).as("no frame pending").isTrue();
        wire.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void aStrangersReadsAreNeverPaced() {
        AtomicLong clock = new AtomicLong(1L << 40);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new FrameDecoder(MAX_FRAME, ReadPacing.on(clock::get)));
        ch.pipeline().addLast(PeerPipeline.HANDSHAKE, new ChannelInboundHandlerAdapter());
        ByteBuf wire = Unpooled.buffer();
        wire.writeInt(300_000).writeZero(30_000);
        for (int i = 0; i < 3; i++) {
            clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
            ch.writeInbound(wire.readRetainedSlice(10_000));
            assertThat(ch.config().isAutoRead()).isTrue();
        }
        wire.release();
        ch.finishAndReleaseAll();
    }
}
