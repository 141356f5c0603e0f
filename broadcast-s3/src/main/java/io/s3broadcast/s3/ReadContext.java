package io.s3broadcast.s3;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.DoubleSupplier;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * What every ranged read of one fetch shares.
 *
 * @param random uniform numbers in [0, 1) for the backoff's jitter
 * @param maxAttempts attempts of a range in a row that make no progress before the fetch fails
 * @param firstByteTimeout how long a GET may wait for its response to begin
 * @param stallTimeout how long a begun response may deliver no byte
 */
record ReadContext(
        S3AsyncClient client,
        ObjectInfo object,
        PieceStore store,
        SourceListener listener,
        ScheduledExecutorService scheduler,
        Ticker ticker,
        DoubleSupplier random,
        Backoff backoff,
        int maxAttempts,
        Duration firstByteTimeout,
        Duration stallTimeout,
        BufferPool buffers) {

    String name() {
        return "s3://" + object.bucket() + "/" + object.key();
    }
}
