package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one frame (type byte and body, from {@link FrameDecoder}) into one {@link PeerMessage}, checking everything
 * a peer could get wrong: an unknown type, a body of the wrong length, a piece index outside the layout, a piece of
 * the wrong length, a bitfield of the wrong length or with spare bits set, a bad handshake or goodbye, overlapping
 * works, and messages out of order (the handshake comes first, then the peer's {@code AUTH} or a goodbye, and
 * there is one of each). The bodies of the handshake and the proof are read by {@link HandshakeBodies}.
 *
 * <p>Piece indexes are checked against our own {@link PieceLayout}: the handshake refuses a peer whose layout
 * differs, so after it both sides share one.
 *
 * <p>A violation is a {@link ProtocolException}: the decoder drops every later frame, fires the exception and
 * closes the channel.
 *
 * <p>Buffer ownership: {@link MessageToMessageDecoder} releases each frame after {@link #decode} returns. Only a
 * {@link Piece} keeps bytes of it, a retained slice taken after every check has passed, owned by the Piece and
 * released by whoever reads it.
 */
final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {

    private enum State {
        /** Nothing received yet; only a handshake is allowed. */
        AWAIT_HANDSHAKE,
        /** Handshake received; only the peer's proof ({@code AUTH}) or a goodbye is allowed. */
        AWAIT_AUTH,
        /** Authenticated; anything but another handshake or proof is allowed. */
        READY,
        /** A violation was seen; everything is dropped. */
        BAD
    }

    private final PieceLayout layout;
    private final int pieceCount;
    private State state = State.AWAIT_HANDSHAKE;

    MessageDecoder(PieceLayout layout) {
        super(ByteBuf.class);
        this.layout = layout;
        this.pieceCount = layout.pieceCount();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        if (state == State.BAD) {
            return;
        }
        try {
            out.add(decode(frame));
        } catch (ProtocolException e) {
            state = State.BAD;
            ctx.fireExceptionCaught(e);
            ctx.close();
        }
    }

    private PeerMessage decode(ByteBuf frame) {
        int id = frame.readUnsignedByte();
        MessageType type = MessageType.fromId(id);
        if (type == null) {
            throw new ProtocolException(String.format("unknown message type 0x%02x", id));
        }
        if (state == State.AWAIT_HANDSHAKE && type != MessageType.HANDSHAKE) {
            throw new ProtocolException("expected HANDSHAKE first, got " + type);
        }
        if (state != State.AWAIT_HANDSHAKE && type == MessageType.HANDSHAKE) {
            throw new ProtocolException("second HANDSHAKE");
        }
        if (state == State.AWAIT_AUTH && type != MessageType.AUTH && type != MessageType.GOODBYE) {
            throw new ProtocolException("expected AUTH after the handshake, got " + type);
        }
        if (state == State.READY && type == MessageType.AUTH) {
            throw new ProtocolException("second AUTH");
        }
        switch (type) {
            case HANDSHAKE:
                Handshake handshake = HandshakeBodies.handshake(frame);
                state = State.AWAIT_AUTH;
                return handshake;
            case AUTH:
                Auth auth = HandshakeBodies.auth(frame);
                state = State.READY;
                return auth;
            case CHOKE:
                return empty(frame, type, Choke.INSTANCE);
            case UNCHOKE:
                return empty(frame, type, Unchoke.INSTANCE);
            case INTERESTED:
                return empty(frame, type, Interested.INSTANCE);
            case NOT_INTERESTED:
                return empty(frame, type, NotInterested.INSTANCE);
            case KEEP_ALIVE:
                return empty(frame, type, KeepAlive.INSTANCE);
            case DONE:
                return empty(frame, type, Done.INSTANCE);
            case HAVE:
                return new Have(pieceBody(frame, type));
            case REQUEST:
                return new Request(pieceBody(frame, type));
            case CANCEL:
                return new Cancel(pieceBody(frame, type));
            case REJECT:
                return new Reject(pieceBody(frame, type));
            case BITFIELD:
                return bitfield(frame);
            case PIECE:
                return piece(frame);
            case GOODBYE:
                return goodbye(frame);
            case GIVE_WORK_REQUEST:
                checkLength(frame, type, 4);
                return new GiveWorkRequest(frame.readInt());
            case GIVE_WORK_RESPONSE:
                return giveWorkResponse(frame);
            case WORKS_LEFT:
                checkLength(frame, type, 4);
                int works = frame.readInt();
                if (works < 0) {
                    throw new ProtocolException("WORKS_LEFT with negative count " + works);
                }
                return new WorksLeft(works);
            case DIGESTS:
                return digests(frame);
            case RELAYED_DIGESTS:
                return relayedDigests(frame);
            default:
                throw new AssertionError(type);
        }
    }

    static void checkLength(ByteBuf body, MessageType type, int expected) {
        if (body.readableBytes() != expected) {
            throw new ProtocolException(type + " body has " + body.readableBytes() + " bytes, expected " + expected);
        }
    }

    private static PeerMessage empty(ByteBuf body, MessageType type, PeerMessage instance) {
        checkLength(body, type, 0);
        return instance;
    }

    private int pieceBody(ByteBuf body, MessageType type) {
        checkLength(body, type, 4);
        return piece(body.readInt(), type);
    }

    private int piece(int piece, MessageType type) {
        if (piece < 0 || piece >= pieceCount) {
            throw new ProtocolException(type + " for piece " + piece + " outside [0, " + pieceCount + ")");
        }
        return piece;
    }

    private BitfieldMessage bitfield(ByteBuf body) {
        checkLength(body, MessageType.BITFIELD, BitfieldMessage.byteLength(pieceCount));
        byte[] bits = new byte[body.readableBytes()];
        body.readBytes(bits);
        String problem = BitfieldMessage.check(pieceCount, bits);
        if (problem != null) {
            throw new ProtocolException("bad BITFIELD: " + problem);
        }
        return BitfieldMessage.wrap(pieceCount, bits);
    }

    private Piece piece(ByteBuf body) {
        if (body.readableBytes() < FrameLimits.PIECE_HEADER_BYTES) {
            throw new ProtocolException("PIECE body has " + body.readableBytes() + " bytes, expected at least "
                    + FrameLimits.PIECE_HEADER_BYTES);
        }
        int piece = piece(body.readInt(), MessageType.PIECE);
        int crc32c = body.readInt();
        int expected = layout.length(piece);
        if (body.readableBytes() != expected) {
            throw new ProtocolException("PIECE " + piece + " has " + body.readableBytes() + " data bytes, expected "
                    + expected);
        }
        return new Piece(piece, crc32c, body.readRetainedSlice(expected));
    }

    private static Goodbye goodbye(ByteBuf body) {
        if (body.readableBytes() < Goodbye.FIXED_BODY_LENGTH) {
            throw new ProtocolException("GOODBYE body has " + body.readableBytes() + " bytes, expected at least "
                    + Goodbye.FIXED_BODY_LENGTH);
        }
        int code = body.readUnsignedByte();
        Goodbye.Reason reason = Goodbye.Reason.fromCode(code);
        if (reason == null) {
            throw new ProtocolException("GOODBYE with unknown reason " + code);
        }
        int detailLength = body.readUnsignedShort();
        if (detailLength > Goodbye.MAX_DETAIL_BYTES) {
            throw new ProtocolException("GOODBYE detail of " + detailLength + " bytes exceeds "
                    + Goodbye.MAX_DETAIL_BYTES);
        }
        if (body.readableBytes() != detailLength) {
            throw new ProtocolException("GOODBYE announces a detail of " + detailLength + " bytes, "
                    + body.readableBytes() + " follow");
        }
        return new Goodbye(reason, HandshakeBodies.utf8(body, detailLength, "goodbye detail"));
    }

    private Digests digests(ByteBuf body) {
        if (body.readableBytes() < Digests.FIXED_BODY_LENGTH) {
            throw new ProtocolException("DIGESTS body has " + body.readableBytes() + " bytes, expected at least "
                    + Digests.FIXED_BODY_LENGTH);
        }
        int first = body.readInt();
        int count = body.readInt();
        if (count < 1 || (long) count * Digests.DIGEST_BYTES + Digests.MAC_BYTES != body.readableBytes()) {
            throw new ProtocolException("DIGESTS announces " + count + " digests and a MAC in " + body.readableBytes()
                    + " bytes");
        }
        if (first < 0 || (long) first + count > pieceCount) {
            throw new ProtocolException("DIGESTS for pieces [" + first + ", " + ((long) first + count)
                    + ") outside [0, " + pieceCount + ")");
        }
        byte[] digests = new byte[count * Digests.DIGEST_BYTES];
        body.readBytes(digests);
        byte[] mac = new byte[Digests.MAC_BYTES];
        body.readBytes(mac);
        return new Digests(first, digests, mac);
    }

    private RelayedDigests relayedDigests(ByteBuf body) {
        if (body.readableBytes() < RelayedDigests.FIXED_BODY_LENGTH) {
            throw new ProtocolException("RELAYED_DIGESTS body has " + body.readableBytes() + " bytes, expected at least "
                    + RelayedDigests.FIXED_BODY_LENGTH);
        }
        int length = body.readUnsignedByte();
        if (length < 1 || length + Digests.FIXED_BODY_LENGTH > body.readableBytes()) {
            throw new ProtocolException("RELAYED_DIGESTS origin id of " + length + " bytes does not fit its body of "
                    + (body.readableBytes() + 1) + " bytes");
        }
        String origin = HandshakeBodies.utf8(body, length, "RELAYED_DIGESTS origin id");
        return new RelayedDigests(origin, digests(body));
    }

    private GiveWorkResponse giveWorkResponse(ByteBuf body) {
        if (body.readableBytes() < GiveWorkResponse.FIXED_BODY_LENGTH) {
            throw new ProtocolException("GIVE_WORK_RESPONSE body has " + body.readableBytes()
                    + " bytes, expected at least " + GiveWorkResponse.FIXED_BODY_LENGTH);
        }
        int requestId = body.readInt();
        int count = body.readInt();
        if (count < 0 || (long) count * GiveWorkResponse.WORK_BYTES != body.readableBytes()) {
            throw new ProtocolException("GIVE_WORK_RESPONSE announces " + count + " works in "
                    + body.readableBytes() + " bytes");
        }
        List<PieceRun> works = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int first = body.readInt();
            int end = body.readInt();
            if (first < 0 || end <= first || end > pieceCount) {
                throw new ProtocolException("GIVE_WORK_RESPONSE work [" + first + ", " + end
                        + ") is not a non-empty run inside [0, " + pieceCount + ")");
            }
            works.add(new PieceRun(first, end));
        }
        String overlap = GiveWorkResponse.overlap(works);
        if (overlap != null) {
            throw new ProtocolException("GIVE_WORK_RESPONSE: " + overlap);
        }
        return new GiveWorkResponse(requestId, works);
    }
}
