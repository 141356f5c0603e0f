package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Making files durable, so every method's clock stops at the same point: the bytes are on disk. */
final class Durability {

    private static final Logger LOG = LoggerFactory.getLogger(Durability.class);

    private Durability() {
    }

    /** fsync of the file's data and of its directory entry, as {@code Broadcast.fetch} does before it returns. */
    static void fsync(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Path dir = file.toAbsolutePath().getParent();
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory; the file itself is durable.
        }
    }

    /**
     * Flushes every dirty page of the machine ({@code sync}) so that writeback of the uploaded object does not
     * slow down whichever method runs first. Best effort: skipped where there is no {@code sync} command.
     */
    static void syncAll() {
        try {
            Process p = new ProcessBuilder("sync").redirectErrorStream(true).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroy();
            }
        } catch (IOException e) {
            LOG.debug("no sync command: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
