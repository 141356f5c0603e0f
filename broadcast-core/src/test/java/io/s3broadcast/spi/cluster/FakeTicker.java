package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;

/** A clock the test moves by hand. */
final class FakeTicker extends Ticker {

    private long nanos;

    @Override
    public long read() {
        return nanos;
    }

    void advance(Duration d) {
        nanos += d.toNanos();
    }
}
