package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BitfieldTest {

    @Test
    void setClearAndCount() {
        Bitfield b = new Bitfield(70);
        assertThat(b.set(0)).isTrue();
        assertThat(b.set(0)).isFalse();
        assertThat(b.set(69)).isTrue();
        assertThat(b.cardinality()).isEqualTo(2);
        assertThat(b.get(69)).isTrue();
        assertThat(b.get(68)).isFalse();
        assertThat(b.clear(0)).isTrue();
        assertThat(b.clear(0)).isFalse();
        assertThat(b.cardinality()).isEqualTo(1);
        assertThat(b.nextSet(0)).isEqualTo(69);
        assertThat(b.nextClear(0)).isZero();
        assertThat(Bitfield.full(70).isComplete()).isTrue();
        assertThat(new Bitfield(0).isComplete()).isTrue();
    }

    @Test
    void nextSetAndNextClearWalkEveryPiece() {
        Bitfield b = new Bitfield(200);
        int[] set = {3, 63, 64, 65, 127, 128, 199};
        for (int i : set) {
            b.set(i);
        }
        int found = 0;
        for (int i = b.nextSet(0); i >= 0; i = b.nextSet(i + 1)) {
            assertThat(i).isEqualTo(set[found++]);
        }
        assertThat(found).isEqualTo(set.length);
        assertThat(b.nextSet(200)).isEqualTo(-1);
        Bitfield full = Bitfield.full(130);
        assertThat(full.nextClear(0)).isEqualTo(-1);
    }

    @Test
    void wireFormIsBitTorrentOrderAndRoundTrips() {
        Bitfield b = new Bitfield(10);
        b.set(0);
        b.set(9);
        assertThat(b.toByteArray()).containsExactly((byte) 0x80, (byte) 0x40);
        Random r = new Random(7);
        for (int size : new int[] {1, 7, 8, 9, 64, 65, 1000}) {
            Bitfield x = new Bitfield(size);
            for (int i = 0; i < size; i++) {
                if (r.nextBoolean()) {
                    x.set(i);
                }
            }
            assertThat(Bitfield.fromByteArray(x.toByteArray(), size)).isEqualTo(x);
        }
    }

    @Test
    void wireFormRejectsWrongLengthAndSpareBits() {
        assertThatThrownBy(() -> Bitfield.fromByteArray(new byte[3], 10)).hasMessageContaining("needs 2 bytes");
        assertThatThrownBy(() -> Bitfield.fromByteArray(new byte[] {0, 0x20}, 10)).hasMessageContaining("spare bit 10");
    }

    @Test
    void outOfRangeIsRejected() {
        Bitfield b = new Bitfield(8);
        assertThatThrownBy(() -> b.set(8)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> b.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
