package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Which group a connection is for, read from the first bytes it sent (the frame of its {@link Handshake}) before
 * any handler of the connection's group is in place: the frame's length, type and magic are checked on the way,
 * and nothing past the group field is read. A shared server uses it to hand the connection to the group's
 * handlers, which then read the whole handshake again from the same bytes.
 */
public final class HandshakeGroup {

    /** Length field, type, then the handshake body up to the group's length byte. */
    private static final int GROUP_LENGTH_OFFSET = FrameLimits.LENGTH_FIELD_BYTES + FrameLimits.TYPE_BYTES
            + Handshake.GROUP_LENGTH_BODY_OFFSET;

    /** The most a peer may send before its group can be read: a whole handshake frame and some slack. */
    public static final int MAX_HEAD_BYTES = GROUP_LENGTH_OFFSET + 1 + Handshake.MAX_STRING_BYTES + 1
            + Handshake.MAX_STRING_BYTES + 64 * 1024;

    private HandshakeGroup() {
    }

    /**
     * The group named by the handshake at the start of {@code head} (from its reader index, which does not move),
     * or null while more bytes are needed.
     *
     * @throws ProtocolException if the bytes cannot be an s3-broadcast handshake (or exceed {@link #MAX_HEAD_BYTES})
     */
    public static String peek(ByteBuf head) {
        int start = head.readerIndex();
        int readable = head.readableBytes();
        if (readable > MAX_HEAD_BYTES) {
            throw new ProtocolException(readable + " bytes sent before a handshake could be read");
        }
        if (readable >= FrameLimits.LENGTH_FIELD_BYTES) {
            long length = head.getUnsignedInt(start);
            if (length < FrameLimits.TYPE_BYTES + Handshake.GROUP_LENGTH_BODY_OFFSET + 1
                    || length > FrameLimits.TYPE_BYTES + Handshake.MAX_BODY_LENGTH) {
                throw new ProtocolException("a first frame of " + length + " bytes cannot be a HANDSHAKE");
            }
        }
        if (readable > FrameLimits.LENGTH_FIELD_BYTES) {
            int type = head.getUnsignedByte(start + FrameLimits.LENGTH_FIELD_BYTES);
            if (type != MessageType.HANDSHAKE.id()) {
                throw new ProtocolException(String.format("expected HANDSHAKE first, got type 0x%02x", type));
            }
        }
        int magicAt = start + FrameLimits.LENGTH_FIELD_BYTES + FrameLimits.TYPE_BYTES;
        if (readable >= magicAt - start + 4 && head.getInt(magicAt) != Handshake.MAGIC) {
            throw new ProtocolException(String.format("bad magic 0x%08x: not an s3-broadcast peer", head.getInt(magicAt)));
        }
        if (readable <= GROUP_LENGTH_OFFSET) {
            return null;
        }
        int groupLength = head.getUnsignedByte(start + GROUP_LENGTH_OFFSET);
        if (groupLength == 0) {
            throw new ProtocolException("HANDSHAKE with an empty group");
        }
        if (readable < GROUP_LENGTH_OFFSET + 1 + groupLength) {
            return null;
        }
        return HandshakeBodies.utf8(head.slice(start + GROUP_LENGTH_OFFSET + 1, groupLength), groupLength, "group");
    }
}
