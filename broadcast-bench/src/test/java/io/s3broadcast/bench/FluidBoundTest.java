package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class FluidBoundTest {

    private static final long S = 100_000_000;

    @Test
    void withoutAnAggregateCapTheSlowestDownloadBinds() {
        FluidBound t = FluidBound.of(S, 0, Collections.nCopies(8, FleetLink.parse("10MB")));
        assertThat(t.seconds()).isEqualTo(10.0);
        assertThat(t.binds()).isEqualTo("download");
        assertThat(t.s3Term()).isZero();
        assertThat(t.uploadTerm()).isZero();
    }

    @Test
    void aHotObjectMakesS3Bind() {
        FluidBound t = FluidBound.of(S, 5_000_000, Collections.nCopies(4, FleetLink.parse("10MB")));
        assertThat(t.s3Term()).isEqualTo(20.0);
        assertThat(t.uploadTerm()).isEqualTo(8.889); // N*S/(O + sum U), rounded to ms
        assertThat(t.binds()).isEqualTo("s3");
    }

    @Test
    void slowUploadsBind() {
        // 8 nodes, 10 MB/s down, 1 MB/s up, S3 at 20 MB/s: N*S/(O+sum U) = 800/28 = 28.6 s
        FluidBound t = FluidBound.of(S, 20_000_000, Collections.nCopies(8, FleetLink.parse("10MB/1MB")));
        assertThat(t.seconds()).isEqualTo(28.571);
        assertThat(t.binds()).isEqualTo("upload");
        assertThat(t.ratio(57.142)).isEqualTo(2.0);
    }

    @Test
    void mixedLinksTakeTheSlowestDownload() {
        List<FleetLink> links = FleetLink.parseFleet("6x10MB,2x2.5MB", 8);
        assertThat(links).hasSize(8);
        assertThat(links.get(7)).isEqualTo(new FleetLink(2_500_000, 2_500_000));
        assertThat(FluidBound.of(S, 0, links).seconds()).isEqualTo(40.0);
    }

    @Test
    void linkSpecs() {
        assertThat(FleetLink.parse("10MB/5MB")).isEqualTo(new FleetLink(10_000_000, 5_000_000));
        assertThat(FleetLink.parse("8MiB")).isEqualTo(new FleetLink(8L << 20, 8L << 20));
        assertThat(FleetLink.parse("unlimited")).isEqualTo(new FleetLink(0, 0));
        assertThat(FleetLink.parse("10MB/5MB").describe()).isEqualTo("10MB/5MB");
        assertThat(FleetLink.parse("2.5MB").describe()).isEqualTo("2.5MB");
        assertThatThrownBy(() -> FleetLink.parseFleet("6x10MB", 8)).hasMessageContaining("describes 6 nodes");
        assertThatThrownBy(() -> FleetLink.parseFleet("10MB", 1)).hasMessageContaining("COUNTxRATE");
    }
}
