package io.s3broadcast.s3;

import java.time.Duration;
import software.amazon.awssdk.crt.io.ClientBootstrap;
import software.amazon.awssdk.crt.io.EventLoopGroup;
import software.amazon.awssdk.crt.io.HostResolver;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;

/**
 * The AWS CRT HTTP client for {@code httpClient=crt} (and {@code auto} when {@link CrtLoads} says it loads).
 * {@code aws-crt-client} and {@code aws-crt} are optional dependencies, so this class is loaded only when asked for,
 * and says what to add when they are missing.
 */
final class CrtHttpClient {

    /** Measured: 256 KiB, 1 MiB and CRT's default 16 MiB fetch equally fast from S3Proxy. */
    static final long READ_BUFFER = 1L << 20;

    static final String CLIENT_CLASS = "software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient";

    private CrtHttpClient() {
    }

    static SdkAsyncHttpClient.Builder<?> builder(int maxConcurrency, Duration connectTimeout, Duration acquireTimeout,
            Duration backstop) {
        requirePresent();
        return AwsCrtAsyncHttpClient.builder()
                .maxConcurrency(maxConcurrency)
                // What CRT buffers (natively) per connection ahead of our demand; its 16 MiB default would be
                // up to 320 MiB for 16 connections when the disk is slower than the network.
                .readBufferSizeInBytes(READ_BUFFER)
                .connectionTimeout(connectTimeout)
                .connectionAcquisitionTimeout(acquireTimeout)
                .connectionHealthConfiguration(h -> h.minimumThroughputInBps(1L).minimumThroughputTimeout(backstop));
    }

    /**
     * Drops the static references to CRT's shared event loops, host resolver and bootstrap, which the SDK's CRT client
     * runs on, once that client is closed. They are reference counted: a CRT client still open elsewhere in the JVM
     * keeps them, and the next one made creates them again. Left open, CRT's shutdown hook waited for their native
     * threads before closing them (the host resolver's thread kept polling) until its join timeout: a JVM exited 0.3
     * to 1.5 s later with CRT than with Netty (measured on a 64 MiB first fetch); released here, 15 ms.
     */
    static void releaseDefaults() {
        ClientBootstrap.closeStaticDefault();
        EventLoopGroup.closeStaticDefault();
        HostResolver.closeStaticDefault();
    }

    private static void requirePresent() {
        try {
            Class.forName(CLIENT_CLASS, false, CrtHttpClient.class.getClassLoader());
            Class.forName("software.amazon.awssdk.crt.CRT", false, CrtHttpClient.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("httpClient=crt needs the AWS CRT on the class path: add"
                    + " software.amazon.awssdk:aws-crt-client (the version of your AWS SDK) and"
                    + " software.amazon.awssdk.crt:aws-crt, or use httpClient=netty (what the default, auto, uses without them)", e);
        }
    }
}
