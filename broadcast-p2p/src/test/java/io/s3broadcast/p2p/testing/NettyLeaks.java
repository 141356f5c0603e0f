package io.s3broadcast.p2p.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records every leak Netty's leak detector reports in this JVM, so that a test can fail on one instead of it
 * being a log line nobody reads. {@link #install()} swaps in a detector factory whose detectors keep each report
 * (and still log it); it must run before Netty makes its first detector (the buffer classes make theirs when they
 * load), which {@link NettyLeakSession} does as the test run opens.
 *
 * <p>The detector only reports a leaked object after the garbage collector has found it and a later tracked
 * allocation polls for it; {@link #collect()} asks for a collection and allocates, so what leaked until then is
 * reported. Best effort: a collection cannot be forced.
 */
public final class NettyLeaks {

    private static final ConcurrentLinkedQueue<String> REPORTS = new ConcurrentLinkedQueue<>();
    private static volatile boolean installed;

    private NettyLeaks() {
    }

    /** Installs the recording factory once; a no-op after the first call. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
        installed = true;
    }

    public static boolean installed() {
        return installed;
    }

    /** Lets the collector find unreachable buffers and makes the detectors poll for them. */
    public static void collect() {
        for (int round = 0; round < 3; round++) {
            System.gc();
            for (int i = 0; i < 64; i++) {
                ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(1);
                direct.release();
                ByteBuf heap = UnpooledByteBufAllocator.DEFAULT.heapBuffer(1);
                heap.release();
            }
        }
    }

    /** The reports since the last call, oldest first; they are removed. */
    public static List<String> drain() {
        List<String> out = new ArrayList<>();
        for (String r; (r = REPORTS.poll()) != null; ) {
            out.add(r);
        }
        return out;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                long maxActive) {
            return new ResourceLeakDetector<>(resource, samplingInterval) {
                @Override
                protected boolean needReport() {
                    return true;
                }

                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                            + records);
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                            + " (no access records: the leak detector was below ADVANCED)");
                    super.reportUntracedLeak(resourceType);
                }
            };
        }
    }
}
