package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.LAYOUT;
import static io.s3broadcast.p2p.protocol.Wire.PEER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PieceWriterTest {

    @TempDir
    Path dir;

    private byte[] object;
    private FileChannel file;
    private EmbeddedChannel ch;
    private ChannelHandlerContext ctx;

    @BeforeEach
    void setUp() throws IOException {
        object = new byte[(int) LAYOUT.objectSize()];
        new Random(42).nextBytes(object);
        Path path = dir.resolve("object.bin");
        Files.write(path, object);
        file = FileChannel.open(path, StandardOpenOption.READ);
        ch = new EmbeddedChannel(MessageEncoder.INSTANCE, new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext c) {
                ctx = c;
            }
        });
    }

    @AfterEach
    void tearDown() throws IOException {
        assertFalse(ch.finish());
        file.close();
    }

    private byte[] pieceBytes(int piece) {
        int from = (int) LAYOUT.offset(piece);
        return Arrays.copyOfRange(object, from, from + LAYOUT.length(piece));
    }

    private static int crc(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    private ChannelFuture write(int piece, boolean zeroCopy) {
        ChannelFuture f = PieceWriter.write(ctx, piece, crc(pieceBytes(piece)), file, LAYOUT.offset(piece),
                LAYOUT.length(piece), zeroCopy);
        ch.flush();
        return f;
    }

    private static byte[] transfer(FileRegion region) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel target = Channels.newChannel(out);
        while (region.transferred() < region.count()) {
            region.transferTo(target, region.transferred());
        }
        return out.toByteArray();
    }

    /** Decodes header and data as the peer would and checks the piece against the file. */
    private void assertDecodesTo(ByteBuf header, byte[] data, int piece) {
        ByteBuf wire = Unpooled.buffer();
        wire.writeBytes(Wire.encode(PEER, Wire.PEER_AUTH)).writeBytes(header).writeBytes(data);
        header.release();
        List<Object> decoded = Wire.decode(wire);
        Piece got = (Piece) decoded.get(2);
        try {
            assertThat(got.piece()).isEqualTo(piece);
            assertThat(got.crcMatches()).isTrue();
            assertThat(ByteBufUtil.getBytes(got.content())).isEqualTo(pieceBytes(piece));
        } finally {
            got.release();
        }
    }

    @Test
    void zeroCopyWritesAHeaderThenAFileRegionThatLeavesTheFileOpen() throws IOException {
        for (int piece : new int[] {0, 4, 10}) {
            ChannelFuture f = write(piece, true);
            assertThat(f.isSuccess()).isTrue();
            ByteBuf header = ch.readOutbound();
            FileRegion region = ch.readOutbound();
            assertThat(region).isInstanceOf(DefaultFileRegion.class);
            assertThat(region.count()).isEqualTo(LAYOUT.length(piece));
            byte[] data;
            try {
                data = transfer(region);
            } finally {
                region.release();
            }
            assertThat(file.isOpen()).as("the store's file stays open after the region is released").isTrue();
            assertDecodesTo(header, data, piece);
        }
    }

    @Test
    void copyingWritesAHeaderThenABufferReadFromTheFile() {
        for (int piece : new int[] {0, 4, 10}) {
            ChannelFuture f = write(piece, false);
            assertThat(f.isSuccess()).isTrue();
            ByteBuf header = ch.readOutbound();
            ByteBuf payload = ch.readOutbound();
            byte[] data = ByteBufUtil.getBytes(payload);
            payload.release();
            assertDecodesTo(header, data, piece);
        }
    }

    @Test
    void anEmbeddedChannelCannotZeroCopySoTheDefaultCopies() {
        assertThat(PieceWriter.canZeroCopy(ch)).isFalse();
        PieceWriter.write(ctx, 1, crc(pieceBytes(1)), file, LAYOUT.offset(1), LAYOUT.length(1));
        ch.flush();
        ByteBuf header = ch.readOutbound();
        Object payload = ch.readOutbound();
        assertThat(payload).isInstanceOf(ByteBuf.class);
        header.release();
        ((ByteBuf) payload).release();
    }

    @Test
    void aPieceBeyondTheEndOfTheFileFailsAndWritesNothing() {
        for (boolean zeroCopy : new boolean[] {true, false}) {
            ChannelFuture f = PieceWriter.write(ctx, 10, 0, file, LAYOUT.offset(10), LAYOUT.length(10) + 1, zeroCopy);
            ch.flush();
            assertThat(f.cause()).isInstanceOf(EOFException.class);
            assertThat(ch.outboundMessages()).isEmpty();
            assertThat(ch.isOpen()).isTrue();
        }
    }
}
