package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fetch's {@link PieceStore} under a name of its own (see {@link PartFiles}) with a {@link PieceJournal}
 * beside it, so a fetch of the same object to the same destination after a crash resumes from the pieces
 * stored before.
 *
 * <p>{@link #open}: removes other runs' temporary files for the destination, reads the journal if it is of
 * this object, reads each listed piece back and checks its CRC32C (a piece that does not match is dropped and
 * fetched again), marks the good ones present in the store with their journaled digests, and journals every
 * piece stored from then on. The end-to-end check sees the resumed pieces like any other, as it watches the
 * store.
 *
 * <p>When the fetch ends: on success ({@link #committed}) the journal is deleted after the rename. On a
 * failure ({@link #stopped}) the temporary file and journal are kept for a later fetch, unless the fetch was
 * cancelled or what was stored cannot be trusted or used again (the object changed or is gone, the end-to-end
 * check failed): then both are removed. Nothing partial is ever at the destination path.
 *
 * <p>When another fetch (in this JVM or in another process, by the journal's file lock) is writing the same
 * object to the same destination, this one falls back to a temporary file of a name of its own and no journal
 * ({@link PartFiles#fallbackPart}: outside what {@link PartFiles#removeStale} removes, so a third fetch does not
 * remove it while this one writes it).
 */
final class ResumableStore {

    private static final Logger LOG = LoggerFactory.getLogger(ResumableStore.class);

    private final PieceStore store;
    private final Path journalPath;
    private final FileChannel journalChannel;
    private final PieceJournal journal;
    private final int resumed;
    private boolean ended;

    private ResumableStore(PieceStore store, Path journalPath, FileChannel journalChannel, PieceJournal journal,
            int resumed) {
        this.store = store;
        this.journalPath = journalPath;
        this.journalChannel = journalChannel;
        this.journal = journal;
        this.resumed = resumed;
    }

    /**
     * The store for {@code info} at {@code destination}, holding the pieces an interrupted fetch of the same
     * object stored there that still check out. {@code keepDigests}: the store keeps each piece's SHA-256 (a
     * cluster fetch); a resumed piece journaled without one gets it computed from its bytes.
     */
    static ResumableStore open(Path destination, ObjectInfo info, PieceLayout layout, boolean keepDigests,
            Executor executor) throws IOException {
        JournalFormat.Identity identity = JournalFormat.Identity.of(info, layout);
        String hash = identity.hash();
        Path journalPath = PartFiles.journal(destination, hash);
        if (!PartFiles.claim(journalPath)) {
            LOG.warn("another fetch in this process is writing {} to {}; this one uses a temporary file of its own and"
                    + " cannot be resumed", identity.object(), destination);
            return notResumable(destination, hash, layout, keepDigests);
        }
        FileChannel channel = null;
        PieceStore store = null;
        try {
            channel = FileChannel.open(journalPath, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            if (PartFiles.tryLock(channel) == null) {
                LOG.warn("another process is writing {} to {} (it holds {}); this fetch uses a temporary file of its"
                        + " own and cannot be resumed", identity.object(), destination, journalPath);
                channel.close();
                PartFiles.release(journalPath);
                return notResumable(destination, hash, layout, keepDigests);
            }
            PartFiles.removeStale(destination, hash, identity);
            JournalFormat.Contents contents = JournalFormat.read(channel);
            if (contents != null && !contents.identity().equals(identity)) {
                contents = null; // the same name for another object: start over
            }
            store = PieceStore.open(destination, PartFiles.part(destination, hash), layout);
            if (keepDigests) {
                store.keepDigests();
            }
            int resumed = 0;
            if (contents == null) {
                JournalFormat.writeHeader(channel, identity);
            } else {
                channel.truncate(contents.validLength());
                List<Integer> dropped = restore(store, contents.pieces());
                JournalFormat.appendForgotten(channel, dropped);
                resumed = store.presentCount();
                LOG.info("resuming {} into {}: {} of {} pieces stored by an interrupted fetch check out{}",
                        identity.object(), destination, resumed, layout.pieceCount(),
                        dropped.isEmpty() ? "" : ", " + dropped.size() + " did not and are fetched again");
            }
            channel.force(false);
            PieceJournal journal = new PieceJournal(channel, store, store.bitfield(), executor);
            store.observe(journal);
            return new ResumableStore(store, journalPath, channel, journal, resumed);
        } catch (IOException | RuntimeException e) {
            if (store != null) {
                // Its channel is closed; what it holds stays for a later fetch, whose journal says what is there.
                store.keepTempFile();
                store.close();
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // the first failure is what matters
                }
            }
            PartFiles.release(journalPath);
            throw e;
        }
    }

    private static ResumableStore notResumable(Path destination, String hash, PieceLayout layout, boolean keepDigests)
            throws IOException {
        PieceStore store = PieceStore.open(destination, PartFiles.fallbackPart(destination, hash), layout);
        if (keepDigests) {
            store.keepDigests();
        }
        return new ResumableStore(store, null, null, null, 0);
    }

    /** Marks present the listed pieces whose bytes match their CRC32C; returns those that do not. */
    private static List<Integer> restore(PieceStore store, Map<Integer, JournalFormat.Entry> pieces) throws IOException {
        List<Integer> dropped = new ArrayList<>();
        if (pieces.isEmpty()) {
            return dropped;
        }
        ByteBuffer buf = ByteBuffer.allocate(store.layout().pieceSize());
        CRC32C crc = new CRC32C();
        for (Map.Entry<Integer, JournalFormat.Entry> e : pieces.entrySet()) {
            int piece = e.getKey();
            buf.clear();
            store.readPiece(piece, buf);
            buf.flip();
            crc.reset();
            crc.update(buf.duplicate());
            if ((int) crc.getValue() != e.getValue().crc32c()) {
                dropped.add(piece);
                continue;
            }
            byte[] sha = e.getValue().sha256();
            if (sha == null && store.keepsDigests()) {
                sha = Sha256.of(buf);
            }
            store.completePiece(piece, e.getValue().crc32c(), sha);
        }
        return dropped;
    }

    PieceStore store() {
        return store;
    }

    /** Pieces taken from an interrupted fetch instead of being fetched. */
    int resumedPieces() {
        return resumed;
    }

    /** Whether a crash from now on can be resumed from (false when another fetch had the journal). */
    boolean isResumable() {
        return journal != null;
    }

    /** The object is at its destination: the journal goes. */
    synchronized void committed() {
        if (ended || journal == null) {
            return;
        }
        ended = true;
        journal.discard(); // deleted next: nothing to write or force
        closeJournal();
        PartFiles.deleteQuietly(journalPath);
    }

    /**
     * The fetch failed with {@code error}: keeps the temporary file and journal for a later fetch to resume
     * from, or removes both when what they hold cannot be used again (see the class comment). Call before the
     * store is closed.
     */
    synchronized void stopped(Throwable error) {
        if (ended || journal == null) {
            return;
        }
        ended = true;
        boolean keep = keepsForResume(error);
        if (keep) {
            journal.close(); // what is queued, written and forced for the next fetch
        } else {
            journal.discard(); // both files go: nothing to write or force
        }
        closeJournal();
        if (keep) {
            store.keepTempFile();
            LOG.info("kept {} ({} of {} pieces) and its journal for a later fetch of the same object to {} to resume"
                    + " from", store.tempFile(), store.presentCount(), store.layout().pieceCount(), store.destination());
        } else {
            PartFiles.delete(journalPath, "its fetch stopped: " + error);
        }
    }

    /** Whether a fetch that failed with {@code error} leaves what it stored for the next one. */
    static boolean keepsForResume(Throwable error) {
        return !(error instanceof CancellationException || error instanceof BroadcastException.ObjectChanged
                || error instanceof BroadcastException.ObjectNotFound
                || error instanceof BroadcastException.ChecksumMismatch);
    }

    private void closeJournal() {
        try {
            journalChannel.close(); // releases the lock
        } catch (IOException e) {
            LOG.debug("cannot close {}", journalPath, e);
        }
        PartFiles.release(journalPath);
    }

    /** For tests: the journal's path, or null when not resumable. */
    Path journalPath() {
        return journalPath;
    }
}
