package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceLayout;

/**
 * Sizes of frames. A frame is a 4-byte length followed by that many bytes: a 1-byte message type and the body. The
 * frame limit bounds the length field, so a peer never makes us buffer more than the limit for one frame, and a
 * frame announced as larger closes the connection before any of it is buffered.
 */
public final class FrameLimits {

    /** Bytes of the length field. */
    public static final int LENGTH_FIELD_BYTES = 4;

    /** Bytes of the message type, counted in the length. */
    public static final int TYPE_BYTES = 1;

    /** Body bytes of a piece before the data: piece index and CRC32C. */
    public static final int PIECE_HEADER_BYTES = 8;

    /** The default limit never goes below this, so that work lists of a useful length fit in one response. */
    public static final int DEFAULT_FLOOR = 64 * 1024;

    private FrameLimits() {
    }

    /**
     * The smallest limit that lets a node receive every message of a broadcast with {@code layout}: the largest
     * piece, the bitfield, the longest handshake and goodbye, and a {@link GiveWorkResponse} of one work.
     *
     * @throws IllegalArgumentException if a piece or the bitfield would not fit in a frame at all
     */
    public static int minimum(PieceLayout layout) {
        long largestPiece = Math.min(layout.pieceSize(), layout.objectSize());
        long needed = TYPE_BYTES + Math.max(
                Math.max(PIECE_HEADER_BYTES + largestPiece, BitfieldMessage.byteLength(layout.pieceCount())),
                Math.max(Math.max(Handshake.MAX_BODY_LENGTH, Goodbye.MAX_BODY_LENGTH),
                        GiveWorkResponse.FIXED_BODY_LENGTH + GiveWorkResponse.WORK_BYTES));
        if (needed > Integer.MAX_VALUE - LENGTH_FIELD_BYTES) {
            throw new IllegalArgumentException("pieces of " + layout.pieceSize() + " bytes do not fit in a frame");
        }
        return (int) needed;
    }

    /** The limit a node uses unless told otherwise: {@link #minimum}, but at least {@link #DEFAULT_FLOOR}. */
    public static int defaultFor(PieceLayout layout) {
        return Math.max(minimum(layout), DEFAULT_FLOOR);
    }
}
