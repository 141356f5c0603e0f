package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.LAYOUT;
import static io.s3broadcast.p2p.protocol.Wire.PEER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every message survives encoder and decoder, fed whole or a byte at a time. */
class MessageCodecTest {

    private static final byte[] PIECE_3 = randomBytes(3, LAYOUT.length(3));
    private static final byte[] PIECE_10 = randomBytes(10, LAYOUT.length(10));

    static byte[] randomBytes(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static Piece piece(int index, byte[] data) {
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        return new Piece(index, Piece.crc32c(buf), buf);
    }

    private static Arguments message(String name, Supplier<PeerMessage> make) {
        return Arguments.of(name, make);
    }

    static Stream<Arguments> messages() {
        return Stream.of(
                message("choke", () -> Choke.INSTANCE),
                message("unchoke", () -> Unchoke.INSTANCE),
                message("interested", () -> Interested.INSTANCE),
                message("not interested", () -> NotInterested.INSTANCE),
                message("keep-alive", () -> KeepAlive.INSTANCE),
                message("done", () -> Done.INSTANCE),
                message("have first", () -> new Have(0)),
                message("have last", () -> new Have(10)),
                message("request", () -> new Request(5)),
                message("cancel", () -> new Cancel(10)),
                message("reject", () -> new Reject(0)),
                message("bitfield some", () -> BitfieldMessage.of(11, p -> p % 3 == 0)),
                message("bitfield none", () -> BitfieldMessage.of(11, p -> false)),
                message("bitfield all", () -> BitfieldMessage.of(11, p -> true)),
                message("piece full", () -> piece(3, PIECE_3)),
                message("piece last, short", () -> piece(10, PIECE_10)),
                message("give work request", () -> new GiveWorkRequest(42)),
                message("give work request, negative id", () -> new GiveWorkRequest(-7)),
                message("give work response", () -> new GiveWorkResponse(7,
                        List.of(new PieceRun(5, 8), new PieceRun(0, 3), new PieceRun(8, 11)))),
                message("give work response, nothing", () -> GiveWorkResponse.nothing(8)),
                message("works left, none", () -> new WorksLeft(0)),
                message("works left", () -> new WorksLeft(123)),
                message("digests, one", () -> new Digests(10, randomBytes(4, Digests.DIGEST_BYTES),
                        randomBytes(40, Digests.MAC_BYTES))),
                message("digests, all", () -> new Digests(0, randomBytes(5, 11 * Digests.DIGEST_BYTES),
                        randomBytes(50, Digests.MAC_BYTES))),
                message("relayed digests", () -> new RelayedDigests("node-7", new Digests(3,
                        randomBytes(6, 2 * Digests.DIGEST_BYTES), randomBytes(60, Digests.MAC_BYTES)))),
                message("goodbye, bad piece", () -> new Goodbye(Goodbye.Reason.BAD_PIECE, "piece 3")),
                message("goodbye", () -> new Goodbye(Goodbye.Reason.NORMAL)),
                message("goodbye with detail", () -> new Goodbye(Goodbye.Reason.LAYOUT_MISMATCH, "détail ✓ 𝄞")),
                message("handshake (as the peer's first message)", () -> PEER),
                message("auth (right after the handshake)", () -> Wire.PEER_AUTH));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void roundTripWhole(String name, Supplier<PeerMessage> make) {
        roundTrip(make, false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void roundTripByteByByte(String name, Supplier<PeerMessage> make) {
        roundTrip(make, true);
    }

    private static void roundTrip(Supplier<PeerMessage> make, boolean byteByByte) {
        PeerMessage expected = make.get();
        PeerMessage sent = make.get();
        boolean isHandshake = sent instanceof Handshake;
        boolean isAuth = sent instanceof Auth;
        ByteBuf bytes = isHandshake ? Wire.encode(sent) : isAuth ? Wire.encode(PEER, sent)
                : Wire.encode(PEER, Wire.PEER_AUTH, sent);
        EmbeddedChannel ch = Wire.codecChannel();
        List<Object> read = new ArrayList<>();
        try {
            if (byteByByte) {
                while (bytes.isReadable()) {
                    ch.writeInbound(bytes.readRetainedSlice(1));
                }
                bytes.release();
            } else {
                assertTrue(ch.writeInbound(bytes));
            }
            for (Object o; (o = ch.readInbound()) != null; ) {
                read.add(o);
            }
            if (isHandshake) {
                assertThat(read).containsExactly(expected);
            } else if (isAuth) {
                assertThat(read).containsExactly(PEER, expected);
            } else {
                assertThat(read).containsExactly(PEER, Wire.PEER_AUTH, expected);
            }
            assertThat(ch.isOpen()).isTrue();
        } finally {
            read.forEach(ReferenceCountUtil::release);
            ReferenceCountUtil.release(expected);
        }
        assertFalse(ch.finish());
    }

    @Test
    void manyMessagesInOneBufferComeOutInOrder() {
        List<PeerMessage> expected = new ArrayList<>();
        List<Object> sent = new ArrayList<>();
        messages().forEach(args -> {
            @SuppressWarnings("unchecked")
            Supplier<PeerMessage> make = (Supplier<PeerMessage>) args.get()[1];
            if (!(make.get() instanceof Handshake) && !(make.get() instanceof Auth)) {
                expected.add(make.get());
                sent.add(make.get());
            }
        });
        sent.add(0, Wire.PEER_AUTH);
        expected.add(0, Wire.PEER_AUTH);
        sent.add(0, PEER);
        expected.add(0, PEER);
        List<Object> decoded = Wire.decode(Wire.encode(sent.toArray()));
        try {
            assertThat(decoded).containsExactlyElementsOf(expected);
        } finally {
            decoded.forEach(ReferenceCountUtil::release);
            expected.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void decodedPieceIsARetainedSliceItsReaderReleases() {
        List<Object> decoded = Wire.decode(Wire.encode(PEER, Wire.PEER_AUTH, piece(3, PIECE_3)));
        Piece piece = (Piece) decoded.get(2);
        assertThat(piece.refCnt()).isEqualTo(1);
        assertThat(piece.crcMatches()).isTrue();
        assertThat(piece.release()).isTrue();
        assertThat(piece.refCnt()).isZero();
    }

    @Test
    void pieceWithWrongCrcIsDeliveredButDoesNotMatch() {
        ByteBuf data = Unpooled.wrappedBuffer(PIECE_3);
        List<Object> decoded = Wire.decode(Wire.encode(PEER, Wire.PEER_AUTH, new Piece(3, Piece.crc32c(data) ^ 1, data)));
        Piece piece = (Piece) decoded.get(2);
        try {
            assertThat(piece.crcMatches()).isFalse();
        } finally {
            piece.release();
        }
    }
}
