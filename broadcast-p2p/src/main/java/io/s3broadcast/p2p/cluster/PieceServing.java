package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.s3broadcast.p2p.protocol.PieceWriter;
import io.s3broadcast.spi.PieceStore;

/**
 * How a node puts its pieces on the wire: the {@code PIECE} it sends for a request and the digest it vouches
 * for a piece it read from S3. {@link #HONEST} is the only one a broadcast uses; tests inject a lying one
 * through {@link PeerCluster} to play a member that serves junk under consistent digests.
 */
interface PieceServing {

    /** Writes (without flushing) the {@code PIECE} for a held piece; a failed future if it cannot. */
    ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece);

    /** The SHA-256 this node announces for a piece it read from S3, whose true digest is {@code sha256}. */
    byte[] digest(PieceStore store, int piece, byte[] sha256);

    /** Zero-copy from the store, true digests. */
    PieceServing HONEST = new PieceServing() {
        @Override
        public ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece) {
            return PieceWriter.write(ctx, store, piece);
        }

        @Override
        public byte[] digest(PieceStore store, int piece, byte[] sha256) {
            return sha256;
        }
    };
}
