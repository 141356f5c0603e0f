package io.s3broadcast.p2p.protocol;

/**
 * The frame header of a {@link Piece} whose data is written separately, right after it, as a {@code FileRegion} or
 * a {@code ByteBuf}. Only {@link PieceWriter} writes these, so that header and data always go out together.
 */
record PieceHeader(int piece, int crc32c, int dataLength) {

    PieceHeader {
        if (piece < 0 || dataLength < 0
                || dataLength > Integer.MAX_VALUE - FrameLimits.TYPE_BYTES - FrameLimits.PIECE_HEADER_BYTES) {
            throw new IllegalArgumentException("bad piece header: piece " + piece + ", " + dataLength + " bytes");
        }
    }
}
