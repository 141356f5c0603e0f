package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PieceLayoutTest {

    @Test
    void lastPieceHoldsTheRemainder() {
        PieceLayout l = new PieceLayout(10, 4);
        assertThat(l.pieceCount()).isEqualTo(3);
        assertThat(l.offset(2)).isEqualTo(8);
        assertThat(l.length(2)).isEqualTo(2);
        assertThat(l.length(0)).isEqualTo(4);
        assertThat(l.pieceAt(9)).isEqualTo(2);
    }

    @Test
    void emptyAndTinyObjects() {
        assertThat(new PieceLayout(0, 4).pieceCount()).isZero();
        PieceLayout one = new PieceLayout(1, 1 << 20);
        assertThat(one.pieceCount()).isEqualTo(1);
        assertThat(one.length(0)).isEqualTo(1);
    }

    @Test
    void hugeObjectsUseLongOffsets() {
        PieceLayout l = new PieceLayout(5L << 30, 1 << 20);
        assertThat(l.pieceCount()).isEqualTo(5 * 1024);
        assertThat(l.offset(5 * 1024 - 1)).isEqualTo((5L << 30) - (1 << 20));
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new PieceLayout(-1, 4)).hasMessageContaining("objectSize");
        assertThatThrownBy(() -> new PieceLayout(4, 0)).hasMessageContaining("pieceSize");
        assertThatThrownBy(() -> new PieceLayout(1L << 50, 1)).hasMessageContaining("larger piece size");
        assertThatThrownBy(() -> new PieceLayout(Long.MAX_VALUE, 2)).hasMessageContaining("larger piece size");
        assertThat(new PieceLayout((1L << 40) + 1, 1 << 20).pieceCount()).isEqualTo((1 << 20) + 1);
        assertThatThrownBy(() -> new PieceLayout(10, 4).length(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void rangeQueueHandsOutRunsOnce() {
        PieceQueue q = PieceQueue.ofRange(2, 9);
        assertThat(q.poll(3)).isEqualTo(new PieceRun(2, 5));
        assertThat(q.poll(3)).isEqualTo(new PieceRun(5, 8));
        assertThat(q.poll(3)).isEqualTo(new PieceRun(8, 9));
        assertThat(q.poll(3)).isNull();
        assertThat(PieceQueue.ofRange(0, 0).poll(1)).isNull();
    }
}
