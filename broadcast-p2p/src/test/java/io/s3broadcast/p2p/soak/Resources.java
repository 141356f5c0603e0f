package io.s3broadcast.p2p.soak;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What this JVM holds at one moment: live threads, open file descriptors ({@code /proc/self/fd}, -1 where there is
 * none), direct memory as the JDK counts it (the {@code direct} buffer pool), as Netty counts its own direct
 * buffers ({@code PlatformDependent.usedDirectMemory()}, -1 when Netty does not count) and as Netty's default pooled
 * allocator holds it, and heap in use after a collection.
 */
record Resources(String label, int threads, long fds, long directBytes, long nettyDirectBytes, long pooledDirectBytes,
        long heapBytes) {

    /**
     * Takes a sample after asking for collections, so that unreachable buffers and channels are freed first; direct
     * memory is the lowest of a few readings, as the cleaner frees direct buffers on its own thread.
     */
    static Resources sample(String label) {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct")).findFirst().orElseThrow();
        long directBytes = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            directBytes = Math.min(directBytes, direct.getMemoryUsed());
        }
        Runtime rt = Runtime.getRuntime();
        return new Resources(label, ManagementFactory.getThreadMXBean().getThreadCount(), openFileDescriptors(),
                directBytes, PlatformDependent.usedDirectMemory(),
                PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(), rt.totalMemory() - rt.freeMemory());
    }

    private static long openFileDescriptors() {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        try (Stream<Path> list = Files.list(fds)) {
            return list.count();
        } catch (IOException e) {
            return -1;
        }
    }

    static String header() {
        return String.format("%-16s %8s %6s %14s %14s %14s %10s", "after", "threads", "fds", "direct B",
                "netty direct B", "pooled direct B", "heap MiB");
    }

    String row() {
        return String.format("%-16s %8d %6d %14d %14d %14d %10d", label, threads, fds, directBytes, nettyDirectBytes,
                pooledDirectBytes, heapBytes >> 20);
    }
}
