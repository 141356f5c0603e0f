package io.s3broadcast.internal;

import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names of a destination's temporary files, and the removal of those a previous run left behind.
 *
 * <p>A fetch of one object (bucket, key, ETag, version, size, piece size: its {@link JournalFormat.Identity})
 * to {@code DIR/NAME} writes {@code DIR/.NAME.HASH.s3b-part} and its journal {@code DIR/.NAME.HASH.s3b-journal},
 * {@code HASH} being 16 hex digits of the identity's SHA-256: the same object to the same place always gets the
 * same name, so a fetch after a crash finds what the last one stored. Older versions named the part file
 * {@code .NAME.<random hex>.s3b-part}; those match the same pattern. Nothing else is ever touched; in
 * particular not a {@link #fallbackPart} ({@code .NAME.HASH-<random hex>.s3b-part}), which another fetch may be
 * writing.
 */
final class PartFiles {

    private static final Logger LOG = LoggerFactory.getLogger(PartFiles.class);

    static final String JOURNAL_SUFFIX = ".s3b-journal";

    /** Journals this JVM has open: their file locks would not keep another fetch in this JVM out. */
    private static final Set<Path> IN_USE = ConcurrentHashMap.newKeySet();

    private PartFiles() {
    }

    static Path part(Path destination, String hash) {
        return destination.resolveSibling("." + destination.getFileName() + "." + hash + PieceStore.TEMP_SUFFIX);
    }

    /**
     * A temporary file for a fetch of the object named {@code hash} while another fetch holds its journal:
     * {@code .NAME.HASH-<random hex>.s3b-part}. The {@code -} keeps it outside {@link #pattern}, so no other
     * fetch removes it while it is written; it is removed when its fetch ends (a crash leaves it behind).
     */
    static Path fallbackPart(Path destination, String hash) {
        return destination.resolveSibling("." + destination.getFileName() + "." + hash + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + PieceStore.TEMP_SUFFIX);
    }

    static Path journal(Path destination, String hash) {
        return destination.resolveSibling("." + destination.getFileName() + "." + hash + JOURNAL_SUFFIX);
    }

    /** Matches this destination's temporary files: group 1 the hash, group 2 the suffix. */
    static Pattern pattern(Path destination) {
        return Pattern.compile("\\." + Pattern.quote(destination.getFileName().toString())
                + "\\.([0-9a-f]{1,16})(" + Pattern.quote(PieceStore.TEMP_SUFFIX) + "|" + Pattern.quote(JOURNAL_SUFFIX) + ")");
    }

    /** Claims {@code journal} for this JVM; false when another fetch here has it. */
    static boolean claim(Path journal) {
        return IN_USE.add(journal);
    }

    static void release(Path journal) {
        IN_USE.remove(journal);
    }

    /**
     * Removes this destination's temporary files other than those named {@code keepHash}, unless another fetch
     * (in this JVM, or holding its journal's lock) is using them. {@code current} is the object now fetched, to
     * say when the one left behind was another version of it.
     */
    static void removeStale(Path destination, String keepHash, JournalFormat.Identity current) {
        Map<Path, Matcher> files;
        try {
            files = list(destination);
        } catch (IOException e) {
            LOG.warn("cannot list {} for temporary files left by earlier fetches of {} ({})", destination.getParent(),
                    destination.getFileName(), e.toString());
            return;
        }
        Set<String> busy = new HashSet<>();
        files.forEach((p, m) -> {
            if (m.group(2).equals(JOURNAL_SUFFIX) && !m.group(1).equals(keepHash) && !removeJournal(p, destination, current)) {
                busy.add(m.group(1));
            }
        });
        files.forEach((p, m) -> {
            if (m.group(2).equals(PieceStore.TEMP_SUFFIX) && !m.group(1).equals(keepHash) && !busy.contains(m.group(1))) {
                delete(p, "left by an earlier fetch to " + destination);
            }
        });
    }

    /**
     * Bytes this destination's temporary files hold (0 when none or the directory cannot be read). A part file
     * is sparse (its size is the object's whatever it holds), so one with a readable journal beside it counts as
     * the pieces that journal lists, at most its size; one without (an older version's random name, a damaged
     * journal) counts at its size. A journal counts at its size.
     */
    static long bytesHeld(Path destination) {
        Map<Path, Matcher> files;
        try {
            files = list(destination);
        } catch (IOException e) {
            return 0;
        }
        Map<String, Long> journaled = new HashMap<>();
        files.forEach((p, m) -> {
            if (m.group(2).equals(JOURNAL_SUFFIX)) {
                long held = piecesListed(p);
                if (held >= 0) {
                    journaled.put(m.group(1), held);
                }
            }
        });
        long bytes = 0;
        for (Map.Entry<Path, Matcher> f : files.entrySet()) {
            long size;
            try {
                size = Files.size(f.getKey());
            } catch (IOException e) {
                continue; // gone meanwhile
            }
            Matcher m = f.getValue();
            Long held = m.group(2).equals(PieceStore.TEMP_SUFFIX) ? journaled.get(m.group(1)) : null;
            bytes += held == null ? size : Math.min(size, held);
        }
        return bytes;
    }

    /** Bytes of the pieces {@code journal} lists (each counted as a whole piece), or -1 when it cannot be read. */
    private static long piecesListed(Path journal) {
        try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.READ)) {
            JournalFormat.Contents c = JournalFormat.read(ch);
            return c == null ? -1 : (long) c.pieces().size() * c.identity().pieceSize();
        } catch (IOException e) {
            return -1;
        }
    }

    /** This destination's temporary files (regular files matching {@link #pattern}), each with its match. */
    private static Map<Path, Matcher> list(Path destination) throws IOException {
        Pattern pattern = pattern(destination);
        Map<Path, Matcher> files = new LinkedHashMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(destination.getParent(),
                "." + globSafe(destination.getFileName().toString()) + ".*")) {
            for (Path p : dir) {
                Matcher m = pattern.matcher(p.getFileName().toString());
                if (m.matches() && Files.isRegularFile(p)) {
                    files.put(p, m);
                }
            }
        }
        return files;
    }

    /** Removes a journal nobody uses (and says what it was of); false when it is in use. */
    private static boolean removeJournal(Path journal, Path destination, JournalFormat.Identity current) {
        if (!claim(journal)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (tryLock(ch) == null) {
                return false;
            }
            JournalFormat.Contents old = JournalFormat.read(ch);
            if (old != null && old.identity().bucket().equals(current.bucket()) && old.identity().key().equals(current.key())
                    && !old.identity().equals(current)) {
                LOG.info("{} changed since the fetch to {} that was interrupted (ETag {} size {}, now ETag {} size {}):"
                        + " starting over, removing its {} stored pieces", current.object(), destination, old.identity().eTag(),
                        old.identity().size(), current.eTag(), current.size(), old.pieces().size());
            }
            delete(journal, "left by an earlier fetch");
            return true;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            LOG.warn("cannot open {} to remove it ({}); it is safe to delete by hand", journal, e.toString());
            return false;
        } finally {
            release(journal);
        }
    }

    /** Locks {@code channel}'s file against other processes; null when one of them (or this JVM) holds it. */
    static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    static void delete(Path file, String why) {
        try {
            if (Files.deleteIfExists(file)) {
                LOG.info("removed {} ({})", file, why);
            }
        } catch (IOException e) {
            LOG.warn("cannot delete {} ({}); it is safe to delete by hand", file, e.toString());
        }
    }

    /** Deletes a file this fetch is done with, logging only a failure. */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {} ({}); it is safe to delete by hand", file, e.toString());
        }
    }

    /** The name with glob metacharacters replaced by {@code ?}: a coarse filter, the pattern decides. */
    private static String globSafe(String name) {
        return name.replaceAll("[\\\\*?\\[\\]{}]", "?");
    }
}
