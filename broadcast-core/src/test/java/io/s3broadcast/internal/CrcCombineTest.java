package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CrcCombineTest {

    @Test
    void theCrcOfTwoRunsIsTheirCrcsCombinedForEveryCrcS3Uses() {
        byte[] data = new byte[70_001];
        new Random(7).nextBytes(data);
        for (String alg : List.of("CRC32", "CRC32C", "CRC64NVME")) {
            CrcCombine combine = CrcCombine.of(alg);
            for (int cut : new int[] {0, 1, 8, 4096, 33_333, 70_000, 70_001}) {
                long a = crc(alg, data, 0, cut);
                long b = crc(alg, data, cut, data.length - cut);
                assertThat(combine.combine(a, b, data.length - cut)).as(alg + " cut at " + cut)
                        .isEqualTo(crc(alg, data, 0, data.length));
            }
        }
        assertThat(CrcCombine.of("SHA256")).isNull();
    }

    private static long crc(String alg, byte[] data, int off, int len) {
        ObjectDigest d = ObjectDigest.of(alg);
        d.update(ByteBuffer.wrap(data, off, len));
        return IncrementalDigest.toLong(d.finish());
    }
}
