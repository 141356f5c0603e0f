package io.s3broadcast.p2p.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak recorder catches a buffer that was never released (the detector also logs it: that ERROR is expected). */
class NettyLeaksTest {

    @Test
    void everyTestClassIsCheckedWithoutAskingForIt() {
        assertThat(NoLeaks.CHECKED).contains(NettyLeaksTest.class.getName());
    }

    @Test
    void aBufferThatIsNeverReleasedIsReported() {
        leakOne();
        List<String> reports = new ArrayList<>();
        for (int round = 0; round < 20 && reports.stream().noneMatch(r -> r.contains("leakedOnPurpose")); round++) {
            NettyLeaks.collect();
            reports.addAll(NettyLeaks.drain());
        }
        assertThat(reports).anySatisfy(r -> assertThat(r).contains("LEAK").contains("leakedOnPurpose"));
    }

    private static void leakOne() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        buf.touch("leakedOnPurpose");
        buf.writeLong(42);
    }
}
