package io.s3broadcast.s3;

import io.s3broadcast.spi.SourceConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;

/**
 * Builds the S3 client a {@link SourceConfig} describes when the caller gave none. The SDK's retries are
 * off (ranges are retried, and resumed, by {@link RangeReader}); timeouts bound connecting and acquiring a
 * connection, and a read timeout beyond the stall timeout backs up the stall watchdog.
 */
final class S3Clients {

    /** Connections beyond {@code connections}, for the HEADs that run beside the GETs. */
    static final int SPARE_CONNECTIONS = 4;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(60);

    private S3Clients() {
    }

    /** A client built here, and what closes it with the resources it does not close itself. */
    record Built(S3AsyncClient client, AutoCloseable closer) {
    }

    static Built build(SourceConfig config) {
        String kind = kind(config.httpClient(), CrtLoads::loads);
        // Netty's own event loop group takes 2 s to close (its graceful shutdown's quiet period); one
        // made here closes at once, the client having finished with it.
        SdkEventLoopGroup group = kind.equals("netty") ? SdkEventLoopGroup.builder().build() : null;
        try {
            S3AsyncClient client = builder(config, kind, group).build();
            boolean crt = kind.equals("crt");
            return new Built(client, () -> {
                try {
                    client.close();
                } finally {
                    if (group != null) {
                        group.eventLoopGroup().shutdownGracefully(0, 5, TimeUnit.SECONDS);
                    }
                    if (crt) {
                        CrtHttpClient.releaseDefaults();
                    }
                }
            });
        } catch (RuntimeException | Error e) {
            if (group != null) {
                group.eventLoopGroup().shutdownGracefully(0, 5, TimeUnit.SECONDS);
            }
            throw e;
        }
    }

    /**
     * The HTTP client {@code httpClient} names: {@code netty} or {@code crt} as they are; {@code auto} is {@code crt}
     * when {@code crtLoads} says the AWS CRT is on the class path and its native library loads, else {@code netty}.
     */
    static String kind(String httpClient, BooleanSupplier crtLoads) {
        String kind = httpClient.toLowerCase(Locale.ROOT);
        switch (kind) {
            case "netty":
            case "crt":
                return kind;
            case "auto":
                return crtLoads.getAsBoolean() ? "crt" : "netty";
            default:
                throw new IllegalArgumentException("unknown httpClient '" + httpClient + "': use auto, netty or crt");
        }
    }

    private static S3AsyncClientBuilder builder(SourceConfig config, String kind, SdkEventLoopGroup group) {
        S3AsyncClientBuilder b = S3AsyncClient.builder()
                .httpClientBuilder(httpClient(config, kind, group))
                .forcePathStyle(config.pathStyle())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                // Pieces are checked with our own CRC32C; no need for the SDK to checksum bodies too.
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED);
        if (config.endpoint() != null) {
            b.endpointOverride(config.endpoint());
        }
        Region region = config.region();
        if (region == null && config.endpoint() != null) {
            // S3-compatible servers mostly ignore the region, but the SDK wants one to sign with.
            try {
                region = new DefaultAwsRegionProviderChain().getRegion();
            } catch (RuntimeException e) {
                region = Region.US_EAST_1;
            }
        }
        if (region != null) {
            b.region(region);
        }
        if (config.credentials() != null) {
            b.credentialsProvider(config.credentials());
        }
        return b;
    }

    private static SdkAsyncHttpClient.Builder<?> httpClient(SourceConfig config, String kind, SdkEventLoopGroup group) {
        int maxConcurrency = config.connections() + SPARE_CONNECTIONS;
        Duration backstop = config.stallTimeout().plusSeconds(30);
        switch (kind) {
            case "netty":
                return NettyNioAsyncHttpClient.builder()
                        .eventLoopGroup(group)
                        .maxConcurrency(maxConcurrency)
                        .connectionTimeout(CONNECT_TIMEOUT)
                        .connectionAcquisitionTimeout(ACQUIRE_TIMEOUT)
                        .readTimeout(backstop)
                        .writeTimeout(Duration.ofSeconds(30))
                        .tcpKeepAlive(true);
            case "crt":
                // In a class of its own: aws-crt-client is optional, and only this path may load it.
                return CrtHttpClient.builder(maxConcurrency, CONNECT_TIMEOUT, ACQUIRE_TIMEOUT, backstop);
            default:
                throw new IllegalArgumentException("unknown httpClient '" + config.httpClient() + "': use auto, netty or crt");
        }
    }
}
