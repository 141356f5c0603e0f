package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.GROUP;
import static io.s3broadcast.p2p.protocol.Wire.MAX_FRAME;
import static io.s3broadcast.p2p.protocol.Wire.PEER;
import static io.s3broadcast.p2p.protocol.Wire.bytes;
import static io.s3broadcast.p2p.protocol.Wire.frame;
import static io.s3broadcast.p2p.protocol.Wire.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of malformed input is a {@link ProtocolException} and closes the channel, whether it arrives whole
 * or a byte at a time, and nothing after it is decoded.
 */
class MalformedInputTest {

    private static final int HAVE = MessageType.HAVE.id();
    private static final int PIECE = MessageType.PIECE.id();
    private static final int BITFIELD = MessageType.BITFIELD.id();
    private static final int GIVE_WORK_RESPONSE = MessageType.GIVE_WORK_RESPONSE.id();
    private static final int GOODBYE = MessageType.GOODBYE.id();
    private static final int HANDSHAKE = MessageType.HANDSHAKE.id();

    /** Input that follows a valid handshake. */
    private static Arguments afterHandshake(String name, Supplier<ByteBuf> input, String error) {
        return Arguments.of(name, true, input, error);
    }

    /** Input that is the first thing the peer sends. */
    private static Arguments first(String name, Supplier<ByteBuf> input, String error) {
        return Arguments.of(name, false, input, error);
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuf buf = Unpooled.buffer();
        for (byte[] p : parts) {
            buf.writeBytes(p);
        }
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    /** A handshake body with the given fields, in wire order. */
    private static byte[] handshakeBody(int magic, int version, int flags, byte[] group, int idLength, byte[] id) {
        ByteBuf buf = Unpooled.buffer()
                .writeInt(magic)
                .writeShort(version)
                .writeByte(flags)
                .writeBytes(new byte[Handshake.NONCE_BYTES])
                .writeByte(group.length)
                .writeBytes(group)
                .writeByte(idLength)
                .writeBytes(id);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    private static ByteBuf handshake(int magic, int version, int idLength, byte[] id) {
        return frame(HANDSHAKE, handshakeBody(magic, version, 1, GROUP_BYTES, idLength, id));
    }

    /** An AUTH frame with the given layout fields after a zero MAC. */
    private static ByteBuf auth(long objectSize, int pieceSize, int maxFrame) {
        ByteBuf body = Unpooled.buffer().writeBytes(new byte[Auth.MAC_BYTES]).writeLong(objectSize).writeInt(pieceSize)
                .writeInt(maxFrame).writeShort(7001);
        byte[] out = new byte[body.readableBytes()];
        body.readBytes(out);
        return frame(AUTH, out);
    }

    private static final int AUTH = MessageType.AUTH.id();

    private static final byte[] GROUP_BYTES = GROUP.getBytes(StandardCharsets.US_ASCII);

    /** A handshake body up to (not including) the group: magic, version, flags, nonce. */
    private static final byte[] FIXED_FIELDS = java.util.Arrays.copyOf(
            handshakeBody(Handshake.MAGIC, Handshake.VERSION, 1, new byte[0], 0, new byte[0]),
            Handshake.GROUP_LENGTH_BODY_OFFSET);

    private static final byte[] ID = "node-peer".getBytes(StandardCharsets.UTF_8);

    /** Input that follows a valid handshake but comes before the peer's AUTH. */
    private static Arguments beforeAuth(String name, Supplier<ByteBuf> input, String error) {
        return Arguments.of(name, null, input, error);
    }

    static Stream<Arguments> malformed() {
        int m = Handshake.MAGIC;
        int v = Handshake.VERSION;
        return Stream.of(
                afterHandshake("unknown type 0x09", () -> frame(0x09), "unknown message type 0x09"),
                afterHandshake("unknown type 0xff", () -> frame(0xFF, ints(1)), "unknown message type 0xff"),
                afterHandshake("empty frame", () -> Unpooled.buffer().writeInt(0), "empty frame"),
                afterHandshake("frame over the limit, header only",
                        () -> Unpooled.buffer().writeInt(MAX_FRAME + 1), "exceeds the limit"),
                afterHandshake("frame length 2^32-1", () -> Unpooled.buffer().writeInt(-1), "exceeds the limit"),
                afterHandshake("choke with a body", () -> frame(MessageType.CHOKE.id(), bytes(0)),
                        "CHOKE body has 1 bytes, expected 0"),
                afterHandshake("done with a body", () -> frame(MessageType.DONE.id(), ints(0)),
                        "DONE body has 4 bytes, expected 0"),
                afterHandshake("have, short body", () -> frame(HAVE, bytes(0, 0, 1)), "HAVE body has 3 bytes"),
                afterHandshake("request, long body", () -> frame(MessageType.REQUEST.id(), bytes(0, 0, 0, 1, 0)),
                        "REQUEST body has 5 bytes"),
                afterHandshake("have -1", () -> frame(HAVE, ints(-1)), "HAVE for piece -1 outside [0, 11)"),
                afterHandshake("request = piece count",
                        () -> frame(MessageType.REQUEST.id(), ints(11)), "REQUEST for piece 11 outside"),
                afterHandshake("cancel MIN_VALUE", () -> frame(MessageType.CANCEL.id(), ints(Integer.MIN_VALUE)),
                        "CANCEL for piece -2147483648 outside"),
                afterHandshake("reject = piece count", () -> frame(MessageType.REJECT.id(), ints(11)),
                        "REJECT for piece 11 outside"),
                afterHandshake("piece index = piece count",
                        () -> frame(PIECE, concat(ints(11, 0), new byte[37])), "PIECE for piece 11 outside"),
                afterHandshake("piece index -1", () -> frame(PIECE, concat(ints(-1, 0), new byte[1000])),
                        "PIECE for piece -1 outside"),
                afterHandshake("last piece too long", () -> frame(PIECE, concat(ints(10, 0), new byte[1000])),
                        "PIECE 10 has 1000 data bytes, expected 37"),
                afterHandshake("piece one byte short", () -> frame(PIECE, concat(ints(0, 0), new byte[999])),
                        "PIECE 0 has 999 data bytes, expected 1000"),
                afterHandshake("piece without crc", () -> frame(PIECE, bytes(0, 0, 0, 0, 0, 0, 0)),
                        "PIECE body has 7 bytes, expected at least 8"),
                afterHandshake("bitfield too short", () -> frame(BITFIELD, bytes(0xFF)),
                        "BITFIELD body has 1 bytes, expected 2"),
                afterHandshake("bitfield too long", () -> frame(BITFIELD, bytes(0xFF, 0xE0, 0)),
                        "BITFIELD body has 3 bytes, expected 2"),
                afterHandshake("bitfield spare bit (piece 11)", () -> frame(BITFIELD, bytes(0xFF, 0xF0)),
                        "spare bits set"),
                afterHandshake("bitfield spare bit (piece 15)", () -> frame(BITFIELD, bytes(0, 0x01)),
                        "spare bits set"),
                afterHandshake("second handshake", () -> Wire.encode(PEER), "second HANDSHAKE"),
                afterHandshake("give work response, count too high",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, 2, 0, 3)), "announces 2 works in 8 bytes"),
                afterHandshake("give work response, negative count",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, -1)), "announces -1 works"),
                afterHandshake("give work response, no count", () -> frame(GIVE_WORK_RESPONSE, ints(1)),
                        "GIVE_WORK_RESPONSE body has 4 bytes, expected at least 8"),
                afterHandshake("give work response, empty work",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, 1, 3, 3)), "work [3, 3) is not a non-empty run"),
                afterHandshake("give work response, work past the end",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, 1, 5, 12)), "work [5, 12) is not"),
                afterHandshake("give work response, negative work",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, 1, -1, 2)), "work [-1, 2) is not"),
                afterHandshake("give work response, overlapping works",
                        () -> frame(GIVE_WORK_RESPONSE, ints(1, 2, 4, 6, 0, 5)), "overlap"),
                afterHandshake("give work request, short", () -> frame(MessageType.GIVE_WORK_REQUEST.id(),
                        bytes(0, 0, 1)), "GIVE_WORK_REQUEST body has 3 bytes"),
                afterHandshake("works left, negative", () -> frame(MessageType.WORKS_LEFT.id(), ints(-1)),
                        "negative count -1"),
                afterHandshake("digests, no MAC", () -> frame(MessageType.DIGESTS.id(), ints(0, 0)),
                        "DIGESTS body has 8 bytes, expected at least 40"),
                afterHandshake("digests, none", () -> frame(MessageType.DIGESTS.id(), concat(ints(0, 0),
                        new byte[32])), "DIGESTS announces 0 digests and a MAC in 32 bytes"),
                afterHandshake("digests, short", () -> frame(MessageType.DIGESTS.id(), concat(ints(0, 2),
                        new byte[33 + 32])), "DIGESTS announces 2 digests and a MAC in 65 bytes"),
                afterHandshake("digests without their MAC", () -> frame(MessageType.DIGESTS.id(), concat(ints(0, 2),
                        new byte[64])), "DIGESTS announces 2 digests and a MAC in 64 bytes"),
                afterHandshake("digests past the end", () -> frame(MessageType.DIGESTS.id(), concat(ints(10, 2),
                        new byte[64 + 32])), "DIGESTS for pieces [10, 12) outside [0, 11)"),
                afterHandshake("relayed digests, no origin", () -> frame(MessageType.RELAYED_DIGESTS.id(),
                        concat(bytes(0), ints(0, 1), new byte[64])), "origin id of 0 bytes"),
                afterHandshake("relayed digests, origin past the body", () -> frame(MessageType.RELAYED_DIGESTS.id(),
                        concat(bytes(200), ints(0, 1), new byte[64])), "origin id of 200 bytes does not fit"),
                afterHandshake("relayed digests past the end", () -> frame(MessageType.RELAYED_DIGESTS.id(),
                        concat(bytes(1, 'a'), ints(10, 2), new byte[96])), "DIGESTS for pieces [10, 12) outside [0, 11)"),
                afterHandshake("digests, negative first", () -> frame(MessageType.DIGESTS.id(), concat(ints(-1, 1),
                        new byte[32 + 32])), "outside [0, 11)"),
                afterHandshake("goodbye, unknown reason", () -> frame(GOODBYE, bytes(200, 0, 0)),
                        "unknown reason 200"),
                afterHandshake("goodbye, detail over the maximum", () -> frame(GOODBYE,
                        concat(bytes(0, 0x07, 0xD0), new byte[2000])), "detail of 2000 bytes exceeds 1024"),
                afterHandshake("goodbye, detail shorter than announced",
                        () -> frame(GOODBYE, bytes(0, 0, 5, 'a', 'b', 'c')), "GOODBYE announces a detail of 5 bytes, 3 follow"),
                afterHandshake("goodbye, detail not UTF-8", () -> frame(GOODBYE, bytes(0, 0, 2, 0xC3, 0x28)),
                        "goodbye detail is not valid UTF-8"),
                afterHandshake("goodbye, short body", () -> frame(GOODBYE, bytes(0, 0)),
                        "GOODBYE body has 2 bytes, expected at least 3"),
                first("have before the handshake", () -> frame(HAVE, ints(1)), "expected HANDSHAKE first, got HAVE"),
                first("unknown type before the handshake", () -> frame(0x47, ints(1)), "unknown message type 0x47"),
                first("an HTTP request", () -> Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n",
                        StandardCharsets.US_ASCII), "exceeds the limit"),
                first("handshake, bad magic", () -> handshake(0x42495454, v, ID.length, ID),
                        "bad magic 0x42495454"),
                first("handshake, version 1", () -> handshake(m, 1, ID.length, ID),
                        "peer speaks protocol version 1, this node speaks 2"),
                first("handshake, unknown flag", () -> frame(HANDSHAKE,
                        handshakeBody(m, v, 0x81, GROUP_BYTES, ID.length, ID)), "unknown flags 0x81"),
                first("handshake, empty node id", () -> handshake(m, v, 0, new byte[0]),
                        "empty node id"),
                first("handshake, node id shorter than announced",
                        () -> handshake(m, v, ID.length + 1, ID),
                        "HANDSHAKE announces a node id of 10 bytes, only 9 follow"),
                first("handshake, trailing byte",
                        () -> handshake(m, v, ID.length, concat(ID, bytes(0))),
                        "HANDSHAKE has 1 bytes after the node id"),
                first("handshake, empty group", () -> frame(HANDSHAKE,
                        handshakeBody(m, v, 1, new byte[0], ID.length, ID)), "empty group"),
                first("auth before the handshake", () -> auth(10_037, 1000, MAX_FRAME),
                        "expected HANDSHAKE first, got AUTH"),
                beforeAuth("have before auth", () -> frame(HAVE, ints(1)), "expected AUTH after the handshake, got HAVE"),
                beforeAuth("request before auth", () -> frame(MessageType.REQUEST.id(), ints(1)),
                        "expected AUTH after the handshake, got REQUEST"),
                beforeAuth("auth, short body", () -> frame(AUTH, ints(1, 2)), "AUTH body has 8 bytes, expected 50"),
                beforeAuth("auth, piece size 0", () -> auth(10_037, 0, MAX_FRAME), "bad AUTH: pieceSize must be > 0"),
                beforeAuth("auth, negative object size", () -> auth(-1, 1000, MAX_FRAME),
                        "bad AUTH: objectSize must be >= 0"),
                beforeAuth("auth, too many pieces", () -> auth(Long.MAX_VALUE, 1, MAX_FRAME), "too many pieces"),
                beforeAuth("auth, frame limit 0", () -> auth(10_037, 1000, 0), "bad AUTH: maxFrameLength must be > 0"),
                afterHandshake("second auth", () -> auth(10_037, 1000, MAX_FRAME), "second AUTH"),
                first("handshake, group longer than the rest", () -> frame(HANDSHAKE,
                        concat(FIXED_FIELDS, bytes(2, 'x'))), "HANDSHAKE announces a group of 2 bytes, only 1 follow"),
                first("handshake, nothing after the group", () -> frame(HANDSHAKE,
                        concat(FIXED_FIELDS, bytes(1, 'x'))), "HANDSHAKE ends before the node id"),
                first("handshake, node id not UTF-8",
                        () -> handshake(m, v, 2, bytes(0xFF, 0xFE)), "node id is not valid UTF-8"),
                first("handshake, short body", () -> frame(HANDSHAKE, ints(Handshake.MAGIC, 1)),
                        "HANDSHAKE body has 8 bytes, expected at least"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void rejectedWhole(String name, Boolean afterHandshake, Supplier<ByteBuf> input, String error) {
        assertRejected(afterHandshake, input.get(), false, error);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void rejectedByteByByte(String name, Boolean afterHandshake, Supplier<ByteBuf> input, String error) {
        assertRejected(afterHandshake, input.get(), true, error);
    }

    /** {@code afterHandshake}: true after handshake and AUTH, null after the handshake only, false first. */
    private static void assertRejected(Boolean afterHandshake, ByteBuf input, boolean byteByByte, String error) {
        EmbeddedChannel ch = Wire.codecChannel();
        if (afterHandshake == null || afterHandshake) {
            ch.writeInbound(Wire.encode(PEER));
            assertThat(Wire.read(ch)).isEqualTo(PEER);
        }
        if (afterHandshake != null && afterHandshake) {
            ch.writeInbound(Wire.encode(Wire.PEER_AUTH));
            assertThat(Wire.read(ch)).isEqualTo(Wire.PEER_AUTH);
        }
        Throwable thrown = null;
        try {
            if (byteByByte) {
                try {
                    while (input.isReadable() && ch.isOpen()) {
                        ch.writeInbound(input.readRetainedSlice(1));
                    }
                } finally {
                    input.release();
                }
            } else {
                ch.writeInbound(input);
            }
        } catch (ProtocolException e) {
            thrown = e;
        }
        assertThat(thrown).isInstanceOf(ProtocolException.class).hasMessageContaining(error);
        assertThat(ch.isOpen()).isFalse();
        assertThat(ch.inboundMessages()).isEmpty();
        assertFalse(ch.finish());
    }

    @Test
    void framesBeforeAViolationAreDeliveredAndFramesAfterItAreNot() {
        EmbeddedChannel ch = Wire.codecChannel();
        ByteBuf input = Unpooled.buffer();
        input.writeBytes(Wire.encode(PEER, Wire.PEER_AUTH)).writeBytes(Wire.encode(new Have(1)))
                .writeBytes(frame(0x09)) // unknown type
                .writeBytes(Wire.encode(new Have(2)));
        List<Object> events = new ArrayList<>();
        Throwable thrown = null;
        try {
            ch.writeInbound(input);
        } catch (ProtocolException e) {
            thrown = e;
        }
        for (Object o; (o = ch.readInbound()) != null; ) {
            events.add(o);
        }
        assertThat(thrown).hasMessageContaining("unknown message type");
        assertThat(events).containsExactly(PEER, Wire.PEER_AUTH, new Have(1));
        assertThat(ch.isOpen()).isFalse();
        assertFalse(ch.finish());
    }

    @Test
    void aFrameExactlyAtTheLimitIsAcceptedAndOneByteMoreIsNot() {
        Goodbye longest = new Goodbye(Goodbye.Reason.NORMAL, "x".repeat(Goodbye.MAX_DETAIL_BYTES));
        int frameLength = 1 + Goodbye.MAX_BODY_LENGTH;

        EmbeddedChannel atLimit = Wire.codecChannel(frameLength);
        atLimit.writeInbound(Wire.encode(PEER, longest));
        assertThat(Wire.read(atLimit)).isEqualTo(PEER);
        assertThat(Wire.read(atLimit)).isEqualTo(longest);
        assertFalse(atLimit.finish());

        EmbeddedChannel belowLimit = Wire.codecChannel(frameLength - 1);
        belowLimit.writeInbound(Wire.encode(PEER));
        assertThat(Wire.read(belowLimit)).isEqualTo(PEER);
        ByteBuf tooLong = Wire.encode(longest);
        Throwable thrown = null;
        try {
            belowLimit.writeInbound(tooLong);
        } catch (ProtocolException e) {
            thrown = e;
        }
        assertThat(thrown).hasMessageContaining("frame of " + frameLength + " bytes exceeds the limit of "
                + (frameLength - 1));
        assertThat(belowLimit.isOpen()).isFalse();
        assertFalse(belowLimit.finish());
    }

    @Test
    void anOversizedFrameIsRefusedOnItsLengthAloneWithoutWaitingForItsBody() {
        EmbeddedChannel ch = Wire.codecChannel();
        ch.writeInbound(Wire.encode(PEER));
        assertThat(Wire.read(ch)).isEqualTo(PEER);
        Throwable thrown = null;
        try {
            // Announces 1 GiB but sends only the length: the decoder must not wait for (or buffer) the body.
            ch.writeInbound(Unpooled.buffer().writeInt(1 << 30));
        } catch (ProtocolException e) {
            thrown = e;
        }
        assertThat(thrown).hasMessageContaining("exceeds the limit");
        assertThat(ch.isOpen()).isFalse();
        assertFalse(ch.finish());
    }
}
