package io.s3broadcast.p2p.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.s3broadcast.p2p.protocol.Piece;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link PieceServing}s that lie, for tests and the bench's chaos runs: injected into one node's cluster through
 * {@link PeerCluster#start(io.s3broadcast.spi.ClusterConfig, software.amazon.awssdk.services.s3.S3AsyncClient,
 * PieceServing, BanListener)}. Nothing in the library uses them, and no switch turns a node into a liar.
 */
final class LyingServing {

    private LyingServing() {
    }

    /**
     * A node whose outgoing pieces carry one flipped byte under the true CRC32C, as a faulty disk or NIC would:
     * caught by the receiver's CRC check.
     */
    static PieceServing corruptingInTransit() {
        return new PieceServing() {
            @Override
            public ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece) {
                return writeFlipped(ctx, store, piece, false);
            }

            @Override
            public byte[] digest(PieceStore store, int piece, byte[] sha256) {
                return sha256;
            }
        };
    }

    /**
     * A member that lies: flips a byte in the middle of every piece it vouches for (those it read from S3 itself),
     * under the junk's own CRC32C and SHA-256, and relays other nodes' pieces honestly, so only an end-to-end
     * check can catch it.
     */
    static PieceServing corruptingOwnPieces() {
        return corruptingOwnPieces(Integer.MAX_VALUE);
    }

    /** Like {@link #corruptingOwnPieces()}, but only the first {@code limit} pieces it vouches for. */
    static PieceServing corruptingOwnPieces(int limit) {
        Set<Integer> vouched = ConcurrentHashMap.newKeySet();
        return new PieceServing() {
            @Override
            public ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece) {
                if (!vouched.contains(piece)) {
                    return PieceServing.HONEST.write(ctx, store, piece);
                }
                return writeFlipped(ctx, store, piece, true);
            }

            @Override
            public byte[] digest(PieceStore store, int piece, byte[] sha256) {
                synchronized (vouched) {
                    if (vouched.size() >= limit && !vouched.contains(piece)) {
                        return sha256;
                    }
                    vouched.add(piece);
                }
                ByteBuffer b = ByteBuffer.allocate(store.layout().length(piece));
                try {
                    store.readPiece(piece, b);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                b.flip();
                b.put(b.limit() / 2, (byte) (b.get(b.limit() / 2) ^ 0x5a));
                return Sha256.of(b);
            }
        };
    }

    /**
     * Writes {@code piece} with its middle byte flipped: under the true CRC32C of the piece as stored (a fault
     * on the way), or under the CRC32C of the flipped bytes ({@code crcOfFlipped}, a liar no CRC can catch).
     */
    private static ChannelFuture writeFlipped(ChannelHandlerContext ctx, PieceStore store, int piece, boolean crcOfFlipped) {
        int length = store.layout().length(piece);
        ByteBuf data = ctx.alloc().buffer(length);
        try {
            data.writeBytes(store.channel(), store.layout().offset(piece), length);
            data.setByte(length / 2, data.getByte(length / 2) ^ 0x5a);
            return ctx.write(new Piece(piece, crcOfFlipped ? Piece.crc32c(data) : store.crc32c(piece), data));
        } catch (IOException | RuntimeException e) {
            data.release();
            return ctx.newFailedFuture(e);
        }
    }
}
