package io.s3broadcast.spi;

/**
 * Makes {@link ObjectSource}s; found with {@link java.util.ServiceLoader}. The {@code broadcast-s3} module
 * registers the S3 one.
 */
public interface ObjectSourceProvider {

    ObjectSource create(SourceConfig config);
}
