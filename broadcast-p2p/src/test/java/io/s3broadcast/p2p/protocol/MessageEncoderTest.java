package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.spi.PieceRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exact bytes on the wire, as {@code docs/protocol.md} describes them. */
class MessageEncoderTest {

    private static String encoded(Object message) {
        ByteBuf buf = Wire.encode(message);
        try {
            return hex(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void encoderIsSharable() {
        assertThat(MessageEncoder.INSTANCE.isSharable()).isTrue();
    }

    @Test
    void emptyMessagesAreALengthOfOneAndTheType() {
        assertThat(encoded(Choke.INSTANCE)).isEqualTo("00000001" + "00");
        assertThat(encoded(Unchoke.INSTANCE)).isEqualTo("00000001" + "01");
        assertThat(encoded(Interested.INSTANCE)).isEqualTo("00000001" + "02");
        assertThat(encoded(NotInterested.INSTANCE)).isEqualTo("00000001" + "03");
        assertThat(encoded(KeepAlive.INSTANCE)).isEqualTo("00000001" + "21");
        assertThat(encoded(Done.INSTANCE)).isEqualTo("00000001" + "22");
    }

    @Test
    void pieceIndexMessages() {
        assertThat(encoded(new Have(3))).isEqualTo("00000005" + "04" + "00000003");
        assertThat(encoded(new Request(258))).isEqualTo("00000005" + "06" + "00000102");
        assertThat(encoded(new Cancel(7))).isEqualTo("00000005" + "08" + "00000007");
        assertThat(encoded(new Reject(7))).isEqualTo("00000005" + "10" + "00000007");
    }

    @Test
    void bitfieldHighBitOfFirstByteIsPieceZero() {
        assertThat(encoded(BitfieldMessage.of(11, p -> p == 0 || p == 10)))
                .isEqualTo("00000003" + "05" + "80" + "20");
    }

    @Test
    void phaseOneMessages() {
        assertThat(encoded(new GiveWorkRequest(9))).isEqualTo("00000005" + "30" + "00000009");
        assertThat(encoded(new WorksLeft(13))).isEqualTo("00000005" + "32" + "0000000d");
        assertThat(encoded(new GiveWorkResponse(9, List.of(new PieceRun(51, 64)))))
                .isEqualTo("00000011" + "31" + "00000009" + "00000001" + "00000033" + "00000040");
        assertThat(encoded(GiveWorkResponse.nothing(9))).isEqualTo("00000009" + "31" + "00000009" + "00000000");
    }

    @Test
    void goodbye() {
        assertThat(encoded(new Goodbye(Goodbye.Reason.SELF_CONNECTION, "hi")))
                .isEqualTo("00000006" + "23" + "07" + "0002" + "6869");
    }

    @Test
    void handshake() {
        byte[] nonce = new byte[Handshake.NONCE_BYTES];
        nonce[0] = (byte) 0xAB;
        Handshake h = new Handshake(Handshake.VERSION, "g7", "n1", nonce, true);
        assertThat(encoded(h)).isEqualTo("0000002e" + "20"
                + "53334243" // magic "S3BC"
                + "0002" // version
                + "01" // flags: authenticated
                + "ab" + "00".repeat(31) // nonce
                + "02" + "6737" // group "g7"
                + "02" + "6e31"); // node id "n1"
    }

    @Test
    void auth() {
        byte[] mac = new byte[Auth.MAC_BYTES];
        mac[31] = 0x5A;
        assertThat(encoded(new Auth(mac, 10_037, 1000, 0x10000, 0x1B58))).isEqualTo("00000033" + "24"
                + "00".repeat(31) + "5a" // MAC
                + "0000000000002735" // object size 10037
                + "000003e8" // piece size 1000
                + "00010000" // max frame length
                + "1b58"); // listen port 7000
    }

    @Test
    void pieceIsAHeaderFollowedByTheSameDataBufferUncopied() {
        ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        EmbeddedChannel ch = new EmbeddedChannel(MessageEncoder.INSTANCE);
        ch.writeOutbound(new Piece(2, 0xCAFEBABE, data));
        ByteBuf header = ch.readOutbound();
        ByteBuf payload = ch.readOutbound();
        try {
            assertThat(hex(header)).isEqualTo("0000000c" + "07" + "00000002" + "cafebabe");
            assertThat(payload).isSameAs(data);
            assertThat(payload.refCnt()).isEqualTo(1);
        } finally {
            header.release();
            payload.release();
        }
        assertFalse(ch.finish());
    }

    @Test
    void otherOutboundObjectsPassThrough() {
        ByteBuf raw = Unpooled.wrappedBuffer(new byte[] {9});
        EmbeddedChannel ch = new EmbeddedChannel(MessageEncoder.INSTANCE);
        ch.writeOutbound(raw);
        ByteBuf out = ch.readOutbound();
        assertThat(out).isSameAs(raw);
        out.release();
        assertFalse(ch.finish());
    }
}
