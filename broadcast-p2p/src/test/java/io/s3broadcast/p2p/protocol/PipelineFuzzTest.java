package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.spi.PieceLayout;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the real {@link PeerPipeline} (frame decoder, message decoder, handshake with the proof of the group
 * secret) on an {@link EmbeddedChannel}, playing the remote peer with inputs from {@link FuzzFrames}, delivered
 * in random chunks. For every input:
 *
 * <ul>
 *   <li>no exception escapes: the only errors the pipeline fires are {@link ProtocolException}s (a handshake
 *       refusal is one), never a wrapped {@code IndexOutOfBoundsException} or the like, and after one the channel
 *       is closed; a refusal by our handshake handler says why in a {@link Goodbye};</li>
 *   <li>memory stays bounded: after every chunk the frame decoder holds less than one frame of the limit and its
 *       length field;</li>
 *   <li>the handshake completes exactly when the peer's handshake and proof arrived intact (and its layout,
 *       group, frame limit and secret fit); otherwise nothing reaches the exchange handler and the channel is
 *       closed by the handshake timeout at the latest; an unmutated stream delivers every frame;</li>
 *   <li>every input buffer is released.</li>
 * </ul>
 *
 * <p>Inputs: {@code -Ds3broadcast.fuzz.inputs=N} (default 10 000, a few seconds; the reliability docs give the
 * 10^6 run), seed {@code -Ds3broadcast.fuzz.seed}; a failure names the seed and index that reproduce it.
 */
class PipelineFuzzTest {

    private static final int INPUTS = Integer.getInteger("s3broadcast.fuzz.inputs", 10_000);
    private static final long SEED = Long.getLong("s3broadcast.fuzz.seed", 0x5EED_F022L);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final byte[] SECRET = Wire.SECRET;
    private static final byte[] WRONG_SECRET = "not-the-group-secret-at-all".getBytes(StandardCharsets.US_ASCII);
    private static final Method INTERNAL_BUFFER;
    /** Largest chunk written at once (as one read from a socket). */
    private static final int MAX_CHUNK = 4096;
    /** Bound on what the pipeline writes during a handshake (our handshake, proof and a goodbye). */
    private static final int OUTBOUND = 4096;

    static {
        try {
            INTERNAL_BUFFER = ByteToMessageDecoder.class.getDeclaredMethod("internalBuffer");
            INTERNAL_BUFFER.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A pipeline configuration: layout, frame limit and the matching input generator. */
    private record Target(PieceLayout layout, int maxFrameLength, FuzzFrames frames) {
        static Target of(PieceLayout layout, int maxFrameLength) {
            return new Target(layout, maxFrameLength, new FuzzFrames(layout, maxFrameLength));
        }
    }

    /** Stands in for the exchange handler: owns and counts what reaches it, records errors, never closes. */
    private static final class Sink extends ChannelInboundHandlerAdapter {
        boolean completed;
        int messages;
        boolean messageBeforeCompletion;
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof HandshakeCompleted) {
                completed = true;
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            messageBeforeCompletion |= !completed;
            messages++;
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS) // the loop is bounded; the 10^6 bench run takes long on a busy machine
    void noInputMakesThePipelineThrowOrBufferMoreThanAFrame() throws Exception {
        PieceLayout layout = Wire.LAYOUT;
        List<Target> targets = List.of(Target.of(layout, FrameLimits.defaultFor(layout)),
                Target.of(layout, FrameLimits.minimum(layout)),
                Target.of(new PieceLayout(100_001, 4096), FrameLimits.minimum(new PieceLayout(100_001, 4096))));
        Map<String, Integer> outcomes = new TreeMap<>();
        long bytes = 0;
        long start = System.nanoTime();
        long startCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        try {
            for (int i = 0; i < INPUTS; i++) {
                bytes += fuzzOne(targets, i, outcomes);
                if ((i + 1) % 100_000 == 0) {
                    System.out.printf("PipelineFuzzTest: %d inputs, %d ms, %s%n", i + 1,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), outcomes);
                }
            }
        } finally {
            targets.forEach(t -> t.frames().close());
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long cpuMillis = TimeUnit.NANOSECONDS.toMillis(
                ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - startCpu);
        System.out.printf("PipelineFuzzTest: %d inputs (%d bytes) in %d ms (%d ms of CPU), seed %#x; outcomes %s%n",
                INPUTS, bytes, millis, cpuMillis, SEED, outcomes);
        assertThat(outcomes).containsKeys("completed", "refused by the handshake", "protocol error");
    }

    /** Runs input {@code index}; returns its size in bytes. */
    private static long fuzzOne(List<Target> targets, int index, Map<String, Integer> outcomes) throws Exception {
        SplittableRandom r = new SplittableRandom(SEED ^ (index * 0x9E3779B97F4A7C15L));
        Target target = targets.get(r.nextInt(targets.size()));
        PeerPipeline.Side side = r.nextBoolean() ? PeerPipeline.Side.DIALER : PeerPipeline.Side.ACCEPTOR;
        boolean secure = r.nextInt(8) != 0;
        PeerAuthenticator authenticator = secure ? PeerAuthenticator.withSecret(SECRET) : PeerAuthenticator.insecure();
        PeerPipeline.Builder b = PeerPipeline.builder().group(Wire.GROUP).nodeId("node-local").listenPort(7001)
                .layout(target.layout()).maxFrameLength(target.maxFrameLength()).handshakeTimeout(TIMEOUT);
        PeerPipeline pipeline = (secure ? b.secret(SECRET) : b.insecure()).exchangeHandler(Sink::new).build();
        // An allocator of our own that counts live bytes: the check of bounded memory and of leaks, exact and
        // without waiting for the garbage collector (and without the cost of paranoid leak records per access).
        UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(false, true);
        EmbeddedChannel ch = new EmbeddedChannel(DefaultChannelId.newInstance(), false, false,
                pipeline.initializer(side));
        ch.config().setAllocator(allocator);
        ch.freezeTime(); // the handshake's timeout runs on fake time only
        ch.register();
        Sink sink = (Sink) ch.pipeline().get(PeerPipeline.EXCHANGE);
        ByteBuf outbound = Unpooled.buffer();
        List<ByteBuf> chunks = new ArrayList<>();
        FuzzFrames.Input input = null;
        try {
            outbound.writeBytes(drain(ch));
            Handshake local = localHandshake(outbound, secure);
            FuzzFrames.Remote remote = target.frames().remote(r, local, side, authenticator,
                    PeerAuthenticator.withSecret(WRONG_SECRET));
            input = target.frames().input(r, remote);
            deliver(r, ch, input.stream(), chunks, target.maxFrameLength(), allocator);
            outbound.writeBytes(drain(ch));
            boolean completedBeforeTimeout = sink.completed;
            ch.advanceTimeBy(TIMEOUT.toNanos() + 1, TimeUnit.NANOSECONDS);
            ch.runPendingTasks();
            outbound.writeBytes(drain(ch));

            assertThat(sink.errors).allSatisfy(e -> assertThat(e.getClass())
                    .isIn(ProtocolException.class, HandshakeException.class));
            assertThat(sink.messageBeforeCompletion).as("a message reached the exchange handler before the handshake")
                    .isFalse();
            assertThat(sink.completed).as("handshake completed").isEqualTo(input.prefixIntact() && input.acceptable());
            assertThat(completedBeforeTimeout).isEqualTo(sink.completed);
            if (!sink.errors.isEmpty() || !sink.completed) {
                assertThat(ch.isOpen()).as("open after an error or without a handshake").isFalse();
            }
            if (sink.errors.stream().anyMatch(e -> e instanceof HandshakeException && e.getMessage().contains(" failed: "))) {
                assertThat(lastFrameType(outbound)).as("a refusal ends with a GOODBYE")
                        .isEqualTo(MessageType.GOODBYE.id());
            }
            if (input.mutations().isEmpty() && sink.completed) {
                assertThat(sink.errors).isEmpty();
                assertThat(sink.messages).isEqualTo(input.bodyFrames());
                assertThat(ch.isOpen()).isTrue();
            }
            String outcome = sink.completed ? (sink.errors.isEmpty() ? "completed" : "completed, then protocol error")
                    : sink.errors.stream().anyMatch(e -> e instanceof HandshakeException) ? "refused by the handshake"
                    : sink.errors.isEmpty() ? "other" : "protocol error";
            outcomes.merge(outcome, 1, Integer::sum);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("fuzz input " + index + " (seed " + SEED + ", " + side + (secure ? "" : ", insecure")
                    + ", frame limit " + target.maxFrameLength() + ", mutations "
                    + (input == null ? "?" : input.mutations()) + ", errors " + sink.errors + "): "
                    + (input == null ? "" : ByteBufUtil.hexDump(input.stream(), 0, Math.min(input.stream().length, 512))),
                    e);
        } finally {
            ch.finishAndReleaseAll();
            outbound.release();
        }
        if (allocator.metric().usedHeapMemory() != 0) {
            throw new AssertionError("fuzz input " + index + " (seed " + SEED + "): "
                    + allocator.metric().usedHeapMemory() + " bytes still allocated after the channel closed");
        }
        for (ByteBuf chunk : chunks) {
            if (chunk.refCnt() != 0) {
                throw new AssertionError("fuzz input " + index + " (seed " + SEED + "): an input chunk was not released");
            }
        }
        return input.stream().length;
    }

    /** Writes {@code stream} in random chunks while the channel is open, checking the decoder's buffer after each. */
    private static void deliver(SplittableRandom r, EmbeddedChannel ch, byte[] stream, List<ByteBuf> chunks,
            int maxFrameLength, UnpooledByteBufAllocator allocator) throws Exception {
        int mode = r.nextInt(4);
        int offset = 0;
        while (offset < stream.length && ch.isOpen()) {
            int n = switch (mode) {
                case 0 -> stream.length - offset;
                case 1 -> stream.length <= 512 ? 1 : r.nextInt(1, 64);
                case 2 -> stream.length <= 8192 ? r.nextInt(1, 64) : r.nextInt(1, 1024);
                default -> r.nextInt(1, MAX_CHUNK + 1);
            };
            n = Math.min(n, stream.length - offset);
            ByteBuf chunk = Unpooled.wrappedBuffer(stream, offset, n);
            chunks.add(chunk);
            ch.writeInbound(chunk);
            offset += n;
            ByteToMessageDecoder decoder = (ByteToMessageDecoder) ch.pipeline().get(PeerPipeline.FRAME_DECODER);
            if (decoder != null) {
                ByteBuf buffered = (ByteBuf) INTERNAL_BUFFER.invoke(decoder);
                assertThat(buffered.readableBytes()).as("bytes buffered by the frame decoder")
                        .isLessThan(FrameLimits.LENGTH_FIELD_BYTES + maxFrameLength);
            }
            // The cumulation holds less than a frame and the chunk that came with it, in a buffer that grows by
            // doubling; besides it only what we wrote out (a handshake, a proof, a goodbye) is allocated.
            assertThat(allocator.metric().usedHeapMemory()).as("bytes allocated by the channel")
                    .isLessThanOrEqualTo(2L * (FrameLimits.LENGTH_FIELD_BYTES + maxFrameLength + MAX_CHUNK) + OUTBOUND);
        }
    }

    /** Everything the channel wrote, as one buffer (the parts released). */
    private static ByteBuf drain(EmbeddedChannel ch) {
        ByteBuf all = Wire.drainOutbound(ch);
        ByteBuf copy = Unpooled.copiedBuffer(all);
        all.release();
        return copy;
    }

    /** Our handshake, read back from the first frame we sent (its nonce is fresh per channel). */
    private static Handshake localHandshake(ByteBuf outbound, boolean secure) {
        int nonceAt = FrameLimits.LENGTH_FIELD_BYTES + FrameLimits.TYPE_BYTES + 4 + 2 + 1;
        assertThat((int) outbound.getUnsignedByte(FrameLimits.LENGTH_FIELD_BYTES)).isEqualTo(MessageType.HANDSHAKE.id());
        byte[] nonce = new byte[Handshake.NONCE_BYTES];
        outbound.getBytes(nonceAt, nonce);
        return new Handshake(Handshake.VERSION, Wire.GROUP, "node-local", nonce, secure);
    }

    /** The type of the last whole frame in {@code bytes}, or -1. */
    private static int lastFrameType(ByteBuf bytes) {
        int type = -1;
        for (int at = bytes.readerIndex(); at + 5 <= bytes.writerIndex(); ) {
            int length = bytes.getInt(at);
            type = bytes.getUnsignedByte(at + 4);
            at += 4 + length;
        }
        return type;
    }
}
