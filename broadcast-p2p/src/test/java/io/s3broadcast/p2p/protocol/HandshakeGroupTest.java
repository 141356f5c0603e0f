package io.s3broadcast.p2p.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** Reading a connection's group from the first bytes of its handshake. */
class HandshakeGroupTest {

    /** The frame of a handshake for {@code group}, as the encoder writes it. */
    private static ByteBuf frame(String group) {
        EmbeddedChannel ch = new EmbeddedChannel(MessageEncoder.INSTANCE);
        ch.writeOutbound(Handshake.of(group, "node-1", true));
        ByteBuf out = Unpooled.buffer();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.writeBytes(b);
            b.release();
        }
        ch.finishAndReleaseAll();
        return out;
    }

    @Test
    void theGroupIsReadOnceItsBytesAreInAndNothingIsConsumed() {
        ByteBuf whole = frame("group-é");
        ByteBuf head = Unpooled.buffer();
        String group = null;
        int fed = 0;
        while (group == null) {
            head.writeByte(whole.getByte(fed++));
            group = HandshakeGroup.peek(head);
        }
        assertEquals("group-é", group);
        assertEquals(0, head.readerIndex());
        assertEquals(4 + 1 + Handshake.GROUP_LENGTH_BODY_OFFSET + 1 + "group-é".getBytes(java.nio.charset.StandardCharsets.UTF_8).length, fed,
                "no further than the group");
        whole.release();
        head.release();
    }

    @Test
    void bytesThatCannotBeAHandshakeAreRefused() {
        ByteBuf good = frame("g");
        ByteBuf wrongType = good.copy();
        wrongType.setByte(4, MessageType.HAVE.id());
        assertThrows(ProtocolException.class, () -> HandshakeGroup.peek(wrongType));
        ByteBuf wrongMagic = good.copy();
        wrongMagic.setInt(5, 0x12345678);
        assertThrows(ProtocolException.class, () -> HandshakeGroup.peek(wrongMagic));
        ByteBuf tooLong = good.copy();
        tooLong.setInt(0, 1 << 20);
        assertThrows(ProtocolException.class, () -> HandshakeGroup.peek(tooLong));
        ByteBuf badUtf8 = good.copy();
        badUtf8.setByte(4 + 1 + Handshake.GROUP_LENGTH_BODY_OFFSET + 1, 0xff);
        assertThrows(ProtocolException.class, () -> HandshakeGroup.peek(badUtf8));
        ByteBuf flood = Unpooled.buffer().writeBytes(good.duplicate()).writeZero(HandshakeGroup.MAX_HEAD_BYTES);
        assertThrows(ProtocolException.class, () -> HandshakeGroup.peek(flood));
        assertNull(HandshakeGroup.peek(good.slice(0, 3)), "too short to tell");
        for (ByteBuf b : new ByteBuf[] {good, wrongType, wrongMagic, tooLong, badUtf8, flood}) {
            b.release();
        }
    }
}
