package io.s3broadcast.p2p.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.spi.PieceLayout;
import java.util.ArrayList;
import java.util.List;

/** Fixtures shared by the protocol tests: a layout, handshakes, and helpers to encode and decode bytes. */
final class Wire {

    /** 11 pieces: ten of 1000 bytes and a last one of 37. */
    static final PieceLayout LAYOUT = new PieceLayout(10_037, 1000);
    /** A group as the registry names it (32 hex digits); the protocol only compares it. */
    static final String GROUP = "3f2a9c0e5b7d4f6a8e1c2b3d4a5f6e7d";
    static final int MAX_FRAME = FrameLimits.defaultFor(LAYOUT);

    /** The group secret of the tests: at least 16 bytes. */
    static final byte[] SECRET = "wire-test-secret-0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    static final Handshake LOCAL = new Handshake(Handshake.VERSION, GROUP, "node-local", nonce(1), true);
    static final Handshake PEER = new Handshake(Handshake.VERSION, GROUP, "node-peer", nonce(2), true);
    /** An AUTH as the decoder sees it (the MAC is only checked by the handshake handler). */
    static final Auth PEER_AUTH = new Auth(new byte[Auth.MAC_BYTES], LAYOUT.objectSize(), LAYOUT.pieceSize(), MAX_FRAME,
            7001);

    static byte[] nonce(int seed) {
        byte[] n = new byte[Handshake.NONCE_BYTES];
        new java.util.Random(seed).nextBytes(n);
        return n;
    }

    private Wire() {
    }

    /** A channel with the two decoders and the encoder, as the pipeline has them, but no handshake handler. */
    static EmbeddedChannel codecChannel() {
        return codecChannel(MAX_FRAME);
    }

    static EmbeddedChannel codecChannel(int maxFrame) {
        return new EmbeddedChannel(new FrameDecoder(maxFrame), new MessageDecoder(LAYOUT), MessageEncoder.INSTANCE);
    }

    /** The bytes the encoder writes for {@code messages}, as one heap buffer. */
    static ByteBuf encode(Object... messages) {
        EmbeddedChannel ch = new EmbeddedChannel(MessageEncoder.INSTANCE);
        ch.writeOutbound(messages);
        ByteBuf all = drainOutbound(ch);
        assertFalse(ch.finish());
        return all;
    }

    /** Everything written to {@code ch} so far, as one heap buffer; the parts are released. */
    static ByteBuf drainOutbound(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf part = (ByteBuf) o;
            try {
                all.writeBytes(part);
            } finally {
                part.release();
            }
        }
        return all;
    }

    /** Decodes {@code bytes} (released) with a fresh codec channel; the caller releases the messages. */
    static List<Object> decode(ByteBuf bytes) {
        EmbeddedChannel ch = codecChannel();
        ch.writeInbound(bytes);
        List<Object> messages = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            messages.add(o);
        }
        assertFalse(ch.finish());
        return messages;
    }

    /** A raw frame: length, {@code type}, {@code body}. */
    static ByteBuf frame(int type, byte... body) {
        return Unpooled.buffer().writeInt(1 + body.length).writeByte(type).writeBytes(body);
    }

    static byte[] ints(int... values) {
        ByteBuf buf = Unpooled.buffer(values.length * 4);
        for (int v : values) {
            buf.writeInt(v);
        }
        return buf.array();
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    /** The next inbound message of {@code ch}, typed as Object so that assertions take it as a value. */
    static Object read(EmbeddedChannel ch) {
        return ch.readInbound();
    }

    static String hex(ByteBuf buf) {
        return io.netty.buffer.ByteBufUtil.hexDump(buf);
    }
}
