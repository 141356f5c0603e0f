package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ByteSizeTest {

    @Test
    void parsesBinaryAndDecimalUnits() {
        assertThat(ByteSize.parse("1GiB")).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("8MiB")).isEqualTo(8L << 20);
        assertThat(ByteSize.parse("8m")).isEqualTo(8L << 20);
        assertThat(ByteSize.parse("1.5KiB")).isEqualTo(1536);
        assertThat(ByteSize.parse("500MB")).isEqualTo(500_000_000L);
        assertThat(ByteSize.parse("4096")).isEqualTo(4096);
        assertThat(ByteSize.parse(" 2 gib ")).isEqualTo(2L << 30);
    }

    @Test
    void rejectsWhatIsNotASize() {
        assertThatThrownBy(() -> ByteSize.parse("big")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> ByteSize.parse("3 parsecs")).hasMessageContaining("unknown unit");
        assertThatThrownBy(() -> ByteSize.parse("1XB")).hasMessageContaining("unknown unit");
    }

    @Test
    void formatsInBinaryUnits() {
        assertThat(ByteSize.format(1L << 30)).isEqualTo("1 GiB");
        assertThat(ByteSize.format(1536)).isEqualTo("1.50 KiB");
        assertThat(ByteSize.format(17)).isEqualTo("17 B");
    }

    @Test
    void rotationLetsEachMethodLeadInTurn() {
        List<String> m = List.of("a", "b", "c");
        assertThat(SingleCommand.rotate(m, 0)).containsExactly("a", "b", "c");
        assertThat(SingleCommand.rotate(m, 1)).containsExactly("b", "c", "a");
        assertThat(SingleCommand.rotate(m, 4)).containsExactly("b", "c", "a");
    }
}
