package io.s3broadcast.spi;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link PieceStore}'s temporary file from birth to end: created under a random name or opened under a given
 * one beside the destination (so the final rename is atomic) and sized to the object, then either committed
 * (fsync, atomic rename over the destination, fsync of the directory) or aborted (closed, and removed unless
 * committed or kept). What the file holds, piece by piece, is the store's business.
 *
 * <p>Takes no lock of its own: {@link #commit()} and {@link #abort()} run under the store's monitor, so callers
 * that hold it see them atomic with the pieces' records. The flags are volatile for the store's unlocked
 * getters; the channel is shared by the store's writers and readers.
 */
final class TempFile {

    /** Logged as PieceStore, the class users know: log configurations name that class. */
    private static final Logger LOG = LoggerFactory.getLogger(PieceStore.class);

    private final Path destination;
    private final Path path;
    private final FileChannel channel;
    private volatile boolean closed;
    private volatile boolean committed;
    private volatile boolean kept;

    private TempFile(Path destination, Path path, FileChannel channel) {
        this.destination = destination;
        this.path = path;
        this.channel = channel;
    }

    /** A new file under a random name beside {@code destination}, {@code size} bytes long. */
    static TempFile create(Path destination, long size) throws IOException {
        Path dest = destination.toAbsolutePath();
        Path dir = dest.getParent();
        String name = "." + dest.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + PieceStore.TEMP_SUFFIX;
        Path temp = dir.resolve(name);
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            if (size > 0) {
                // Sets the length without writing every byte; pieces fill it in at their positions.
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            Files.deleteIfExists(temp);
            throw e;
        }
        return new TempFile(dest, temp, ch);
    }

    /** {@code tempFile} beside {@code destination}, created if need be, its bytes kept, cut or grown to {@code size} bytes. */
    static TempFile open(Path destination, Path tempFile, long size) throws IOException {
        Path dest = destination.toAbsolutePath();
        Path temp = tempFile.toAbsolutePath();
        if (!dest.getParent().equals(temp.getParent())) {
            throw new IllegalArgumentException(temp + " is not beside " + dest + ": the final rename would not be atomic");
        }
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long current = ch.size();
            if (current > size) {
                ch.truncate(size);
            } else if (current < size) {
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
        return new TempFile(dest, temp, ch);
    }

    Path destination() {
        return destination;
    }

    Path path() {
        return path;
    }

    FileChannel channel() {
        return channel;
    }

    /** From now on {@link #abort()} leaves the file in place. */
    void keep() {
        kept = true;
    }

    /**
     * Flushes the file, renames it over the destination atomically and flushes the directory; the channel stays
     * open. The caller checked that every piece is present.
     */
    Path commit() throws IOException {
        if (committed || closed) {
            throw new IllegalStateException("cannot commit " + destination + ": already " + (committed ? "committed" : "closed"));
        }
        channel.force(true);
        try {
            Files.move(path, destination, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot rename " + path + " to " + destination + " atomically", e);
        } catch (FileAlreadyExistsException e) {
            throw new IOException(destination + " exists and is not a regular file that can be replaced", e);
        }
        committed = true;
        forceDirectory(destination.getParent());
        return destination;
    }

    boolean isCommitted() {
        return committed;
    }

    /** Closes the channel and removes the file unless committed or kept. Idempotent; never throws. */
    void abort() {
        closeQuietly(channel);
        closed = true;
        if (committed || kept) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("cannot delete temporary file {}; it is safe to delete by hand", path, e);
        }
    }

    boolean isClosed() {
        return closed;
    }

    private static void forceDirectory(Path dir) {
        // Persists the rename; not every platform can open a directory, and that is not an error.
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // best effort
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing after a failure; the first failure is what matters
        }
    }
}
