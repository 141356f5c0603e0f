package io.s3broadcast.s3;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

    private static final Logger LOG = LoggerFactory.getLogger(CrtHttpClient.class);

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

    /** How long closing waits for CRT's event loops to stop: measured 0-3 ms when nothing else in the JVM uses them. */
    static final Duration EVENT_LOOPS_STOP = Duration.ofMillis(500);

    /**
     * Drops the static references to CRT's shared event loops, host resolver and bootstrap, which the SDK's CRT client
     * runs on, once that client is closed, and waits (at most {@link #EVENT_LOOPS_STOP}) until the event loops have
     * stopped. They are reference counted: a CRT client still open elsewhere in the JVM keeps them (the wait then
     * ends at its bound), and the next one made creates them again.
     *
     * <p>Why both. Left open, CRT's shutdown hook waited for their native threads until its join timeout: a JVM exited
     * 0.3 to 1.5 s later with CRT than with Netty (measured on a 64 MiB first fetch). Released but not awaited, a JVM
     * that exits at once still exited ~1.3 s late in 2-4 of 10 runs ({@code single --fresh-jvm --warmup 0 --size 16MiB}):
     * the group's native cleanup thread, calling into Java to complete its shutdown future, blocked at the JVM's
     * final safepoint while CRT's at-exit hook waited for it (seen with gdb). Awaited here, 12 of 12 exited at once.
     */
    static void releaseDefaults() {
        CompletableFuture<Void> eventLoops = staticEventLoopShutdown();
        ClientBootstrap.closeStaticDefault();
        EventLoopGroup.closeStaticDefault();
        HostResolver.closeStaticDefault();
        if (eventLoops == null) {
            return;
        }
        try {
            eventLoops.get(EVENT_LOOPS_STOP.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.debug("CRT's shared event loops did not stop within {} (a CRT client elsewhere in this JVM may still"
                    + " use them); not waiting longer", EVENT_LOOPS_STOP);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // stopped, with an error: nothing left to wait for
        }
    }

    /**
     * The shutdown future of CRT's static event loop group, if one exists. CRT keeps the group in a private static
     * field and offers no public way to reach it without creating one, so it is read reflectively; where that is not
     * allowed (e.g. on a module path that does not open the package), null, and the JVM's exit may wait as before.
     */
    static CompletableFuture<Void> staticEventLoopShutdown() {
        try {
            Field f = EventLoopGroup.class.getDeclaredField("staticDefaultEventLoopGroup");
            f.setAccessible(true);
            synchronized (EventLoopGroup.class) { // as closeStaticDefault and getOrCreateStaticDefault
                EventLoopGroup group = (EventLoopGroup) f.get(null);
                return group == null ? null : group.getShutdownCompleteFuture();
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
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
