package io.s3broadcast.s3;

import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import io.s3broadcast.spi.SourceConfig;

/**
 * Registers the S3 {@link ObjectSource} with {@link java.util.ServiceLoader}. The source builds an
 * {@code S3AsyncClient} from the config (Netty or CRT HTTP client, SDK retries off) unless the config
 * carries a client, which it then uses as is and never closes.
 */
public final class S3ObjectSourceProvider implements ObjectSourceProvider {

    @Override
    public ObjectSource create(SourceConfig config) {
        return S3ObjectSource.create(config);
    }
}
