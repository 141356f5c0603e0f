package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The bodies of a connection's first two messages, {@link Handshake} and {@link Auth}, read and checked (magic,
 * version, flags, lengths, strings), and the wire's strings: UTF-8, strictly decoded. Each method reads one body
 * or string and throws a {@link ProtocolException} for anything a peer could get wrong in it; {@link MessageDecoder}
 * says when each may come, and {@link HandshakeGroup} reads the group with the same rules before the decoder runs.
 */
final class HandshakeBodies {

    private HandshakeBodies() {
    }

    static Handshake handshake(ByteBuf body) {
        if (body.readableBytes() < Handshake.FIXED_BODY_LENGTH) {
            throw new ProtocolException("HANDSHAKE body has " + body.readableBytes() + " bytes, expected at least "
                    + Handshake.FIXED_BODY_LENGTH);
        }
        int magic = body.readInt();
        if (magic != Handshake.MAGIC) {
            throw new ProtocolException(String.format("bad magic 0x%08x: not an s3-broadcast peer", magic));
        }
        int version = body.readUnsignedShort();
        if (version != Handshake.VERSION) {
            throw new ProtocolException("peer speaks protocol version " + version + ", this node speaks "
                    + Handshake.VERSION);
        }
        int flags = body.readUnsignedByte();
        if ((flags & ~Handshake.FLAG_AUTHENTICATED) != 0) {
            throw new ProtocolException(String.format("HANDSHAKE with unknown flags 0x%02x", flags));
        }
        byte[] nonce = new byte[Handshake.NONCE_BYTES];
        body.readBytes(nonce);
        String group = string(body, "group");
        if (!body.isReadable()) {
            throw new ProtocolException("HANDSHAKE ends before the node id");
        }
        String nodeId = string(body, "node id");
        if (body.isReadable()) {
            throw new ProtocolException("HANDSHAKE has " + body.readableBytes() + " bytes after the node id");
        }
        try {
            return new Handshake(version, group, nodeId, nonce, (flags & Handshake.FLAG_AUTHENTICATED) != 0);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("bad HANDSHAKE: " + e.getMessage(), e);
        }
    }

    static Auth auth(ByteBuf body) {
        MessageDecoder.checkLength(body, MessageType.AUTH, Auth.BODY_LENGTH);
        byte[] mac = new byte[Auth.MAC_BYTES];
        body.readBytes(mac);
        long objectSize = body.readLong();
        int pieceSize = body.readInt();
        int maxFrameLength = body.readInt();
        int listenPort = body.readUnsignedShort();
        try {
            return new Auth(mac, objectSize, pieceSize, maxFrameLength, listenPort);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("bad AUTH: " + e.getMessage(), e);
        }
    }

    /** A string of 1-255 UTF-8 bytes after its uint8 length. */
    private static String string(ByteBuf body, String what) {
        int length = body.readUnsignedByte();
        if (length == 0) {
            throw new ProtocolException("HANDSHAKE with an empty " + what);
        }
        if (body.readableBytes() < length) {
            throw new ProtocolException("HANDSHAKE announces a " + what + " of " + length + " bytes, only "
                    + body.readableBytes() + " follow");
        }
        return utf8(body, length, what);
    }

    /** The next {@code length} bytes of {@code body} as UTF-8, strictly decoded; {@code what} names them in errors. */
    static String utf8(ByteBuf body, int length, String what) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(body.nioBuffer(body.readerIndex(), length))
                    .toString();
            body.skipBytes(length);
            return s;
        } catch (CharacterCodingException e) {
            throw new ProtocolException(what + " is not valid UTF-8", e);
        }
    }
}
