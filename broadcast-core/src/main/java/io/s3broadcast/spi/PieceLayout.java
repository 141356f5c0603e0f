package io.s3broadcast.spi;

/**
 * How an object of {@code objectSize} bytes is cut into pieces of {@code pieceSize} bytes; the last
 * piece holds the remainder. A zero-byte object has no pieces.
 */
public record PieceLayout(long objectSize, int pieceSize) {

    public PieceLayout {
        if (objectSize < 0) {
            throw new IllegalArgumentException("objectSize must be >= 0, was " + objectSize);
        }
        if (pieceSize <= 0) {
            throw new IllegalArgumentException("pieceSize must be > 0, was " + pieceSize);
        }
        if (pieces(objectSize, pieceSize) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("object of " + objectSize + " bytes has too many pieces of "
                    + pieceSize + " bytes; choose a larger piece size");
        }
    }

    public int pieceCount() {
        return (int) pieces(objectSize, pieceSize);
    }

    private static long pieces(long objectSize, int pieceSize) {
        // Written without objectSize + pieceSize - 1, which overflows near Long.MAX_VALUE.
        return objectSize / pieceSize + (objectSize % pieceSize == 0 ? 0 : 1);
    }

    public long offset(int piece) {
        checkPiece(piece);
        return (long) piece * pieceSize;
    }

    public int length(int piece) {
        checkPiece(piece);
        return (int) Math.min(pieceSize, objectSize - (long) piece * pieceSize);
    }

    /** Index of the piece holding byte {@code position}. */
    public int pieceAt(long position) {
        if (position < 0 || position >= objectSize) {
            throw new IndexOutOfBoundsException("position " + position + " outside object of " + objectSize + " bytes");
        }
        return (int) (position / pieceSize);
    }

    private void checkPiece(int piece) {
        if (piece < 0 || piece >= pieceCount()) {
            throw new IndexOutOfBoundsException("piece " + piece + " outside [0, " + pieceCount() + ")");
        }
    }
}
