package io.s3broadcast.spi;

/** A run of consecutive pieces [first, end): one ranged GET, or one work of the steal strategy. */
public record PieceRun(int first, int end) {

    public PieceRun {
        if (first < 0 || end <= first) {
            throw new IllegalArgumentException("empty or negative run [" + first + ", " + end + ")");
        }
    }

    public int count() {
        return end - first;
    }
}
