package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.GROUP;
import static io.s3broadcast.p2p.protocol.Wire.LAYOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The message value classes, limits and the pipeline builder, without a channel. */
class MessageValuesTest {

    @Test
    void wireIdsAreUniqueAndLookedUpBothWays() {
        Set<Integer> ids = new HashSet<>();
        for (MessageType type : MessageType.values()) {
            assertThat(ids.add(type.id())).isTrue();
            assertThat(MessageType.fromId(type.id())).isSameAs(type);
        }
        assertThat(MessageType.fromId(0x09)).isNull();
        assertThat(MessageType.fromId(-1)).isNull();
        assertThat(MessageType.fromId(256)).isNull();
        assertThat(MessageType.PIECE.id()).as("BitTorrent's id").isEqualTo(7);
    }

    @Test
    void bitfieldUsesBitTorrentBitOrder() {
        BitfieldMessage b = BitfieldMessage.of(11, new byte[] {(byte) 0x81, 0x20});
        assertThat(b.has(0)).isTrue();
        assertThat(b.has(7)).isTrue();
        assertThat(b.has(10)).isTrue();
        assertThat(b.has(1)).isFalse();
        assertThat(b.cardinality()).isEqualTo(3);
        assertThat(b.isComplete()).isFalse();
        assertThat(BitfieldMessage.of(11, p -> true).toByteArray()).containsExactly(0xFF, 0xE0);
        assertThat(BitfieldMessage.of(11, p -> true).isComplete()).isTrue();
        assertThat(BitfieldMessage.of(16, p -> true).toByteArray()).containsExactly(0xFF, 0xFF);
        assertThat(BitfieldMessage.of(0, p -> true).toByteArray()).isEmpty();
        assertThatThrownBy(() -> b.has(11)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void bitfieldRefusesWrongLengthsAndSpareBits() {
        assertThatThrownBy(() -> BitfieldMessage.of(11, new byte[] {0})).hasMessageContaining("has 2 bytes, not 1");
        assertThatThrownBy(() -> BitfieldMessage.of(11, new byte[] {0, 0x10})).hasMessageContaining("spare bits");
        assertThatThrownBy(() -> BitfieldMessage.of(9, new byte[] {0, 0x40})).hasMessageContaining("spare bits");
        assertThat(BitfieldMessage.of(9, new byte[] {0, (byte) 0x80}).has(8)).isTrue();
    }

    @Test
    void bitfieldCopiesItsInput() {
        byte[] bits = {(byte) 0x80, 0};
        BitfieldMessage b = BitfieldMessage.of(11, bits);
        bits[0] = 0;
        assertThat(b.has(0)).isTrue();
        b.toByteArray()[0] = 0;
        assertThat(b.has(0)).isTrue();
    }

    @Test
    void bitfieldConvertsToAndFromTheCoreBitfield() {
        Bitfield core = new Bitfield(11);
        core.set(0);
        core.set(9);
        core.set(10);
        BitfieldMessage message = BitfieldMessage.of(core);
        assertThat(message.toByteArray()).containsExactly(0x80, 0x60);
        assertThat(message.toBitfield()).isEqualTo(core);
        assertThat(BitfieldMessage.of(Bitfield.full(11))).isEqualTo(BitfieldMessage.of(11, p -> true));
    }

    @Test
    void handshakeValidatesItsFields() {
        byte[] n = Wire.nonce(1);
        int v = Handshake.VERSION;
        assertThatThrownBy(() -> new Handshake(v, GROUP, "", n, true)).hasMessageContaining("nodeId");
        assertThatThrownBy(() -> new Handshake(v, GROUP, "x".repeat(256), n, true)).hasMessageContaining("nodeId");
        assertThat(new Handshake(v, GROUP, "é".repeat(127), n, true).nodeId()).hasSize(127);
        assertThatThrownBy(() -> new Handshake(v, "", "n", n, true)).hasMessageContaining("group");
        assertThatThrownBy(() -> new Handshake(v, GROUP, "n", new byte[31], true)).hasMessageContaining("nonce");
        assertThat(Handshake.of(GROUP, "n", true).nonce()).hasSize(Handshake.NONCE_BYTES)
                .isNotEqualTo(Handshake.of(GROUP, "n", true).nonce());
        assertThat(Handshake.of(GROUP, "n", true).toString()).doesNotContain(GROUP.substring(0, 0) + "secret");
    }

    @Test
    void authValidatesItsFields() {
        byte[] mac = new byte[Auth.MAC_BYTES];
        assertThatThrownBy(() -> new Auth(new byte[31], 10, 1, 70_000, 0)).hasMessageContaining("mac");
        assertThatThrownBy(() -> new Auth(mac, 10, 1, 70_000, 65_536)).hasMessageContaining("listenPort");
        assertThatThrownBy(() -> new Auth(mac, 10, 1, 0, 0)).hasMessageContaining("maxFrameLength");
        assertThatThrownBy(() -> new Auth(mac, 10, 0, 70_000, 0)).hasMessageContaining("pieceSize");
        assertThat(new Auth(mac, LAYOUT.objectSize(), LAYOUT.pieceSize(), 70_000, 0).layout()).isEqualTo(LAYOUT);
    }

    @Test
    void goodbyeCutsALongDetailAtACodePoint() {
        String clef = "𝄞"; // 4 bytes in UTF-8, 2 chars
        Goodbye g = new Goodbye(Goodbye.Reason.NORMAL, "ab" + clef.repeat(300));
        byte[] utf8 = g.detail().getBytes(StandardCharsets.UTF_8);
        assertThat(utf8.length).isEqualTo(2 + 4 * 255);
        assertThat(g.detail()).endsWith(clef);
        assertThat(new Goodbye(Goodbye.Reason.NORMAL, "x".repeat(1024)).detail()).hasSize(1024);
        assertThat(new Goodbye(Goodbye.Reason.NORMAL).detail()).isEmpty();
    }

    @Test
    void goodbyeReasonCodesAreUnique() {
        Set<Integer> codes = new HashSet<>();
        for (Goodbye.Reason r : Goodbye.Reason.values()) {
            assertThat(codes.add(r.code())).isTrue();
            assertThat(Goodbye.Reason.fromCode(r.code())).isSameAs(r);
        }
        assertThat(Goodbye.Reason.fromCode(255)).isNull();
    }

    @Test
    void giveWorkResponseRefusesOverlappingWorksAndKeepsTheirOrder() {
        assertThatThrownBy(() -> new GiveWorkResponse(1,
                List.of(new PieceRun(0, 5), new PieceRun(4, 8))))
                .hasMessageContaining("overlap");
        GiveWorkResponse r = new GiveWorkResponse(1,
                List.of(new PieceRun(5, 8), new PieceRun(0, 5)));
        assertThat(r.works()).extracting(PieceRun::first).containsExactly(5, 0);
        assertThat(r.isEmpty()).isFalse();
        assertThat(GiveWorkResponse.nothing(1).isEmpty()).isTrue();
    }

    @Test
    void maxWorksFillsTheFrameExactly() {
        int n = GiveWorkResponse.maxWorks(Wire.MAX_FRAME);
        PieceRun[] works = new PieceRun[n];
        Arrays.setAll(works, i -> new PieceRun(i, i + 1));
        // Frame length = type + requestId + count + works; it must fit and one more work must not.
        assertThat(1 + 8 + 8L * n).isLessThanOrEqualTo(Wire.MAX_FRAME);
        assertThat(1 + 8 + 8L * (n + 1)).isGreaterThan(Wire.MAX_FRAME);
        assertThat(new GiveWorkResponse(0, List.of(works)).works()).hasSize(n);
    }

    @Test
    void frameLimitsCoverTheLargestMessageOfTheLayout() {
        // Small pieces: the longest goodbye is the largest message.
        assertThat(FrameLimits.minimum(LAYOUT)).isEqualTo(1 + Goodbye.MAX_BODY_LENGTH);
        // Large pieces: a piece is.
        assertThat(FrameLimits.minimum(new PieceLayout(1L << 30, 1 << 20))).isEqualTo(1 + 8 + (1 << 20));
        // A small object in large pieces: its one piece is only as large as the object.
        assertThat(FrameLimits.minimum(new PieceLayout(5000, 1 << 20))).isEqualTo(1 + 8 + 5000);
        // Tiny pieces of a huge object: the bitfield is.
        assertThat(FrameLimits.minimum(new PieceLayout(1L << 34, 16))).isEqualTo(1 + (1 << 27));
        assertThat(FrameLimits.defaultFor(LAYOUT)).isEqualTo(FrameLimits.DEFAULT_FLOOR);
        assertThatThrownBy(() -> FrameLimits.minimum(new PieceLayout(Integer.MAX_VALUE, Integer.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pipelineBuilderChecksItsInput() {
        assertThatThrownBy(() -> PeerPipeline.builder().group(GROUP).nodeId("n").layout(LAYOUT).build())
                .hasMessageContaining("no group secret");
        assertThatThrownBy(() -> PeerPipeline.builder().secret(new byte[15]))
                .hasMessageContaining("at least 16");
        PeerPipeline.Builder b = PeerPipeline.builder().group(GROUP).nodeId("n").layout(LAYOUT).secret(Wire.SECRET);
        assertThat(b.build().maxFrameLength()).isEqualTo(FrameLimits.defaultFor(LAYOUT));
        assertThat(b.build().handshakeTimeout()).isEqualTo(PeerPipeline.DEFAULT_HANDSHAKE_TIMEOUT);
        assertThat(b.build().listenPort()).isZero();
        assertThat(b.build().authenticated()).isTrue();
        assertThatThrownBy(() -> b.maxFrameLength(FrameLimits.minimum(LAYOUT) - 1).build())
                .hasMessageContaining("is below");
        assertThat(b.maxFrameLength(FrameLimits.minimum(LAYOUT)).build().maxFrameLength())
                .isEqualTo(FrameLimits.minimum(LAYOUT));
        assertThatThrownBy(() -> PeerPipeline.builder().group(GROUP).layout(LAYOUT).insecure().build())
                .hasMessageContaining("nodeId");
        assertThatThrownBy(() -> b.handshakeTimeout(java.time.Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.listenPort(70_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void digestsAreSignedWithTheGroupSecretAndAnyChangeOrOtherSignerIsRefused() {
        byte[] secret = "a group secret of 32 bytes......".getBytes(StandardCharsets.UTF_8);
        PeerPipeline alice = PeerPipeline.builder().group(GROUP).nodeId("alice").layout(LAYOUT).secret(secret).build();
        PeerPipeline bob = PeerPipeline.builder().group(GROUP).nodeId("bob").layout(LAYOUT).secret(secret).build();
        byte[] digests = new byte[3 * Digests.DIGEST_BYTES];
        Arrays.fill(digests, (byte) 7);
        Digests signed = alice.signDigests(4, digests);

        assertThat(bob.verify(signed, "alice")).as("the vouching node's own MAC").isTrue();
        assertThat(bob.verify(signed, "mallory")).as("claimed for another node").isFalse();
        byte[] altered = digests.clone();
        altered[40] ^= 1;
        assertThat(bob.verify(new Digests(4, altered, signed.macUnsafe()), "alice")).as("a digest altered").isFalse();
        assertThat(bob.verify(new Digests(5, digests, signed.macUnsafe()), "alice")).as("moved to other pieces").isFalse();
        byte[] otherSecret = "another secret, also 32 bytes...".getBytes(StandardCharsets.UTF_8);
        PeerPipeline carol = PeerPipeline.builder().group(GROUP).nodeId("carol").layout(LAYOUT).secret(otherSecret).build();
        assertThat(carol.verify(signed, "alice")).as("checked with another secret").isFalse();
        PeerPipeline otherGroup = PeerPipeline.builder().group("another-group").nodeId("dave").layout(LAYOUT)
                .secret(secret).build();
        assertThat(otherGroup.verify(signed, "alice")).as("replayed into another group").isFalse();

        PeerPipeline insecureA = PeerPipeline.builder().group(GROUP).nodeId("alice").layout(LAYOUT).insecure().build();
        PeerPipeline insecureB = PeerPipeline.builder().group(GROUP).nodeId("bob").layout(LAYOUT).insecure().build();
        assertThat(insecureB.verify(insecureA.signDigests(4, digests), "alice")).as("insecure: the empty key").isTrue();
        assertThat(bob.verify(insecureA.signDigests(4, digests), "alice")).as("empty key against a secret").isFalse();
        assertThatThrownBy(() -> new Digests(0, digests, new byte[31])).isInstanceOf(IllegalArgumentException.class);
    }
}
