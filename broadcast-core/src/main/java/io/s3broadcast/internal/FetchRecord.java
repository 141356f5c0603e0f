package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectInfo;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * What was fetched to a destination, recorded beside it in {@code .NAME.s3broadcast}: bucket, key, ETag,
 * version id, size and the file's modification time after the commit. A later fetch of the same object to
 * the same path whose HEAD matches the record, and whose file still has the recorded size and time, is
 * skipped: nothing is read from S3.
 */
final class FetchRecord {

    static final String SUFFIX = ".s3broadcast";

    private FetchRecord() {
    }

    static Path recordFor(Path destination) {
        return destination.resolveSibling("." + destination.getFileName() + SUFFIX);
    }

    /** True when {@code destination} holds the object {@code info} describes, as recorded by {@link #write}. */
    static boolean matches(Path destination, ObjectInfo info) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(recordFor(destination), StandardCharsets.UTF_8)) {
            p.load(in);
            return info.bucket().equals(p.getProperty("bucket"))
                    && info.key().equals(p.getProperty("key"))
                    && info.eTag().equals(p.getProperty("eTag"))
                    && info.versionId().orElse("").equals(p.getProperty("versionId", ""))
                    && String.valueOf(info.size()).equals(p.getProperty("size"))
                    && Files.size(destination) == info.size()
                    && String.valueOf(Files.getLastModifiedTime(destination).toMillis()).equals(p.getProperty("modified"));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | IllegalArgumentException e) {
            return false; // an unreadable record is no record: fetch again
        }
    }

    /** Records {@code info} for the committed file at {@code destination}; a failure only costs the skip next time. */
    static void write(Path destination, ObjectInfo info) {
        Path record = recordFor(destination);
        Path temp = record.resolveSibling(record.getFileName() + ".tmp");
        Properties p = new Properties();
        p.setProperty("bucket", info.bucket());
        p.setProperty("key", info.key());
        p.setProperty("eTag", info.eTag());
        p.setProperty("versionId", info.versionId().orElse(""));
        p.setProperty("size", String.valueOf(info.size()));
        try {
            p.setProperty("modified", String.valueOf(Files.getLastModifiedTime(destination).toMillis()));
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
                p.store(out, "s3-broadcast: what " + destination.getFileName() + " holds; delete to force a new fetch");
            }
            try {
                Files.move(temp, record, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, record, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | UncheckedIOException e) {
            try {
                Files.deleteIfExists(temp);
                Files.deleteIfExists(record);
            } catch (IOException ignored) {
                // a stale record cannot match: its modification time is the old file's
            }
        }
    }

    /** Removes the record before a new fetch replaces the file, so a failed fetch leaves none that could match. */
    static void forget(Path destination) {
        try {
            Files.deleteIfExists(recordFor(destination));
        } catch (IOException ignored) {
            // matches() re-checks size and time anyway
        }
    }
}
