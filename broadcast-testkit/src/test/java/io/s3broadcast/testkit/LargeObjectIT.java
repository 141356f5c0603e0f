package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A 2 GiB+ object goes up and comes back through the fixture without being held in memory: the
 * testkit's failsafe runs use a 256 MiB heap, which also holds S3Proxy when it is the backend.
 */
@RealS3
class LargeObjectIT {

  private static final long SIZE = (2L << 30) + (1 << 20) + 3;

  @Test
  void twoGibibytesRoundTripWithASmallHeap(S3Fixture s3) {
    assertThat(Runtime.getRuntime().maxMemory()).isLessThan(SIZE / 4);
    long started = System.nanoTime();
    StoredObject object = s3.putRandom(s3.key("two-gib.bin"), SIZE, 77);
    long uploaded = System.nanoTime();
    assertThat(object.eTag()).endsWith("-" + ((SIZE + S3Fixture.PART_SIZE - 1) / S3Fixture.PART_SIZE) + "\"");
    assertThat(s3.sha256(object.key())).isEqualTo(object.sha256());
    long downloaded = System.nanoTime();
    // Across the 2 GiB boundary, where int offsets would overflow.
    long from = (2L << 30) - 5;
    assertThat(s3.getRange(object.key(), from, from + 9)).isEqualTo(SeededData.bytes(77, from, 10));
    System.out.printf(
        "%s: 2 GiB up %.1f s (%.0f MB/s), down+sha %.1f s%n",
        s3.server().name(),
        (uploaded - started) / 1e9,
        SIZE / 1e6 / ((uploaded - started) / 1e9),
        (downloaded - uploaded) / 1e9);
  }
}
