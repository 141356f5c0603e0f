package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HANDSHAKE and AUTH bodies and the wire's strings, read directly. */
class HandshakeBodiesTest {

    private static final List<ByteBuf> MADE = new ArrayList<>();

    @AfterEach
    void release() {
        MADE.forEach(ByteBuf::release);
        MADE.clear();
    }

    private static ByteBuf made(ByteBuf b) {
        MADE.add(b);
        return b;
    }

    private static ByteBuf handshake(int magic, int version, int flags, byte[] group, byte[] node, int trailing) {
        ByteBuf b = made(Unpooled.buffer());
        b.writeInt(magic).writeShort(version).writeByte(flags).writeBytes(new byte[Handshake.NONCE_BYTES]);
        b.writeByte(group.length).writeBytes(group).writeByte(node.length).writeBytes(node);
        return b.writeZero(trailing);
    }

    private static ByteBuf handshake(String group, String node) {
        return handshake(Handshake.MAGIC, Handshake.VERSION, Handshake.FLAG_AUTHENTICATED,
                group.getBytes(StandardCharsets.UTF_8), node.getBytes(StandardCharsets.UTF_8), 0);
    }

    @Test
    void aWellFormedHandshakeIsRead() {
        Handshake h = HandshakeBodies.handshake(handshake("grüppe", "node-1"));
        assertThat(h.group()).isEqualTo("grüppe");
        assertThat(h.nodeId()).isEqualTo("node-1");
    }

    @Test
    void aHandshakeAPeerGotWrongIsAProtocolException() {
        byte[] g = {'g'};
        byte[] n = {'n'};
        assertThatThrownBy(() -> HandshakeBodies.handshake(handshake(0x12345678, Handshake.VERSION, 0, g, n, 0)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("not an s3-broadcast peer");
        assertThatThrownBy(() -> HandshakeBodies.handshake(handshake(Handshake.MAGIC, 1, 0, g, n, 0)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("protocol version 1");
        assertThatThrownBy(() -> HandshakeBodies.handshake(handshake(Handshake.MAGIC, Handshake.VERSION, 6, g, n, 0)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown flags 0x06");
        assertThatThrownBy(() -> HandshakeBodies.handshake(handshake(Handshake.MAGIC, Handshake.VERSION, 0, new byte[0],
                n, 0))).isInstanceOf(ProtocolException.class).hasMessageContaining("empty group");
        assertThatThrownBy(() -> HandshakeBodies.handshake(handshake(Handshake.MAGIC, Handshake.VERSION, 0, g, n, 3)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("3 bytes after the node id");
        assertThatThrownBy(() -> HandshakeBodies.handshake(made(Unpooled.wrappedBuffer(new byte[5]))))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("expected at least");
    }

    @Test
    void anAuthOfTheWrongLengthIsAProtocolException() {
        assertThatThrownBy(() -> HandshakeBodies.auth(made(Unpooled.wrappedBuffer(new byte[Auth.BODY_LENGTH - 1]))))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("AUTH body has");
    }

    @Test
    void stringsAreStrictUtf8AndReadPast() {
        ByteBuf b = made(Unpooled.wrappedBuffer("héllo!".getBytes(StandardCharsets.UTF_8)));
        assertThat(HandshakeBodies.utf8(b, 6, "greeting")).isEqualTo("héllo");
        assertThat(b.readableBytes()).isEqualTo(1);
        ByteBuf bad = made(Unpooled.wrappedBuffer(new byte[] {(byte) 0xC3, 0x28}));
        assertThatThrownBy(() -> HandshakeBodies.utf8(bad, 2, "greeting"))
                .isInstanceOf(ProtocolException.class).hasMessage("greeting is not valid UTF-8");
    }
}
