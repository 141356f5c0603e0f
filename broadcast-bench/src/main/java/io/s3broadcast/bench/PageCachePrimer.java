package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a scratch file of a download's size into the page cache and deletes it, untimed, just before the
 * download: every method then writes into memory freed a moment ago.
 *
 * <p>Why: a virtual machine with free page reporting (virtio-balloon, as this development machine: see
 * {@code /sys/module/page_reporting/parameters}) hands free memory back to its host a moment after it is freed,
 * and the next write to such a page faults on the host. Measured here with
 * {@code dd} of 1 GiB: 1.78 s of system time after a pause of a few seconds, 0.24 s right after another 1 GiB was
 * written and deleted. A download that found its memory cold took several times the CPU of the one before it; which
 * method did depended on the order and on pauses (a node JVM's start-up), not on the method.
 */
final class PageCachePrimer {

    private static final int CHUNK = 1 << 20;

    private PageCachePrimer() {
    }

    /** Writes {@code bytes} bytes to {@code scratch} (never synced) and deletes it. */
    static void prime(Path scratch, long bytes) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK);
        try (FileChannel out = FileChannel.open(scratch, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long written = 0; written < bytes; ) {
                chunk.clear().limit((int) Math.min(CHUNK, bytes - written));
                written += out.write(chunk);
            }
        } finally {
            Files.deleteIfExists(scratch);
        }
    }
}
