package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.s3broadcast.spi.PieceRun;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes each {@link PeerMessage} as one frame: length (int32), type id (uint8), body. Stateless, so one
 * {@link #INSTANCE} serves every channel.
 *
 * <p>A {@link Piece} becomes two buffers, the frame header and the piece's data (the same buffer, retained, not
 * copied). A {@link PieceHeader} becomes just the header; {@link PieceWriter} writes the data after it. Anything
 * else (a {@code ByteBuf}, a {@code FileRegion}) passes through untouched.
 *
 * <p>Buffer ownership: {@link MessageToMessageEncoder} releases each message after {@link #encode} returns; the
 * buffers added to {@code out} belong to the next handler.
 */
@Sharable
final class MessageEncoder extends MessageToMessageEncoder<Object> {

    static final MessageEncoder INSTANCE = new MessageEncoder();

    private MessageEncoder() {
    }

    @Override
    public boolean acceptOutboundMessage(Object msg) {
        return msg instanceof PeerMessage || msg instanceof PieceHeader;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) {
        if (msg instanceof PieceHeader header) {
            out.add(pieceHeader(ctx, header.piece(), header.crc32c(), header.dataLength()));
            return;
        }
        PeerMessage message = (PeerMessage) msg;
        MessageType type = message.type();
        switch (type) {
            case CHOKE:
            case UNCHOKE:
            case INTERESTED:
            case NOT_INTERESTED:
            case KEEP_ALIVE:
            case DONE:
                out.add(frame(ctx, type, 0));
                break;
            case HAVE:
                out.add(frame(ctx, type, 4).writeInt(((Have) message).piece()));
                break;
            case REQUEST:
                out.add(frame(ctx, type, 4).writeInt(((Request) message).piece()));
                break;
            case CANCEL:
                out.add(frame(ctx, type, 4).writeInt(((Cancel) message).piece()));
                break;
            case REJECT:
                out.add(frame(ctx, type, 4).writeInt(((Reject) message).piece()));
                break;
            case GIVE_WORK_REQUEST:
                out.add(frame(ctx, type, 4).writeInt(((GiveWorkRequest) message).requestId()));
                break;
            case WORKS_LEFT:
                out.add(frame(ctx, type, 4).writeInt(((WorksLeft) message).works()));
                break;
            case BITFIELD:
                BitfieldMessage bitfield = (BitfieldMessage) message;
                out.add(frame(ctx, type, bitfield.byteLength()).writeBytes(bitfield.bitsUnsafe()));
                break;
            case PIECE:
                Piece piece = (Piece) message;
                ByteBuf data = piece.content();
                out.add(pieceHeader(ctx, piece.piece(), piece.crc32c(), data.readableBytes()));
                out.add(data.retain());
                break;
            case HANDSHAKE:
                out.add(handshake(ctx, (Handshake) message));
                break;
            case AUTH:
                Auth auth = (Auth) message;
                out.add(frame(ctx, type, Auth.BODY_LENGTH)
                        .writeBytes(auth.macUnsafe())
                        .writeLong(auth.objectSize())
                        .writeInt(auth.pieceSize())
                        .writeInt(auth.maxFrameLength())
                        .writeShort(auth.listenPort()));
                break;
            case GOODBYE:
                Goodbye goodbye = (Goodbye) message;
                byte[] detail = goodbye.detail().getBytes(StandardCharsets.UTF_8);
                out.add(frame(ctx, type, Goodbye.FIXED_BODY_LENGTH + detail.length)
                        .writeByte(goodbye.reason().code())
                        .writeShort(detail.length)
                        .writeBytes(detail));
                break;
            case GIVE_WORK_RESPONSE:
                GiveWorkResponse response = (GiveWorkResponse) message;
                List<PieceRun> works = response.works();
                ByteBuf buf = frame(ctx, type,
                        GiveWorkResponse.FIXED_BODY_LENGTH + GiveWorkResponse.WORK_BYTES * works.size());
                buf.writeInt(response.requestId()).writeInt(works.size());
                for (PieceRun work : works) {
                    buf.writeInt(work.first()).writeInt(work.end());
                }
                out.add(buf);
                break;
            case DIGESTS:
                Digests digests = (Digests) message;
                byte[] bytes = digests.bytesUnsafe();
                out.add(frame(ctx, type, Digests.FIXED_BODY_LENGTH + bytes.length)
                        .writeInt(digests.first()).writeInt(digests.count()).writeBytes(bytes).writeBytes(digests.macUnsafe()));
                break;
            case RELAYED_DIGESTS:
                RelayedDigests relayed = (RelayedDigests) message;
                byte[] origin = relayed.origin().getBytes(StandardCharsets.UTF_8);
                byte[] list = relayed.digests().bytesUnsafe();
                out.add(frame(ctx, type, RelayedDigests.FIXED_BODY_LENGTH + origin.length + list.length)
                        .writeByte(origin.length).writeBytes(origin)
                        .writeInt(relayed.digests().first()).writeInt(relayed.digests().count()).writeBytes(list)
                        .writeBytes(relayed.digests().macUnsafe()));
                break;
            default:
                throw new AssertionError(type);
        }
    }

    /** A buffer holding the length and type of a frame with a body of {@code bodyLength}, room for the body. */
    private static ByteBuf frame(ChannelHandlerContext ctx, MessageType type, int bodyLength) {
        return ctx.alloc().ioBuffer(FrameLimits.LENGTH_FIELD_BYTES + FrameLimits.TYPE_BYTES + bodyLength)
                .writeInt(FrameLimits.TYPE_BYTES + bodyLength)
                .writeByte(type.id());
    }

    private static ByteBuf pieceHeader(ChannelHandlerContext ctx, int piece, int crc32c, int dataLength) {
        int headerBytes = FrameLimits.LENGTH_FIELD_BYTES + FrameLimits.TYPE_BYTES + FrameLimits.PIECE_HEADER_BYTES;
        return ctx.alloc().ioBuffer(headerBytes)
                .writeInt(FrameLimits.TYPE_BYTES + FrameLimits.PIECE_HEADER_BYTES + dataLength)
                .writeByte(MessageType.PIECE.id())
                .writeInt(piece)
                .writeInt(crc32c);
    }

    private static ByteBuf handshake(ChannelHandlerContext ctx, Handshake h) {
        byte[] group = h.group().getBytes(StandardCharsets.UTF_8);
        byte[] nodeId = h.nodeId().getBytes(StandardCharsets.UTF_8);
        return frame(ctx, MessageType.HANDSHAKE, Handshake.FIXED_BODY_LENGTH + group.length + nodeId.length)
                .writeInt(Handshake.MAGIC)
                .writeShort(h.version())
                .writeByte(h.authenticated() ? Handshake.FLAG_AUTHENTICATED : 0)
                .writeBytes(h.nonceUnsafe())
                .writeByte(group.length)
                .writeBytes(group)
                .writeByte(nodeId.length)
                .writeBytes(nodeId);
    }
}
