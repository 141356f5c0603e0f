package io.s3broadcast.spi;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;

/**
 * The object being assembled on local disk: a temporary file beside the destination, written at each
 * piece's position, that becomes visible at the destination path only through {@link #commit()} (fsync,
 * then an atomic rename). Until then nothing is at the destination; {@link #abort()} removes the
 * temporary file. The file's life (its name beside the destination, the commit's fsyncs and rename, its
 * removal) is {@link TempFile}'s; this class keeps what goes into it: the writes, the reads and the pieces' records.
 *
 * <p>Thread-safe: many connections write disjoint ranges at once; piece bookkeeping, {@link #commit()} and
 * {@link #abort()} are guarded by this store. A piece counts as present only after {@link #completePiece}
 * recorded its CRC32C (and, in a store that {@linkplain #keepDigests() keeps digests}, its SHA-256).
 */
public final class PieceStore implements Closeable {

    /**
     * Suffix of temporary files. A fetch that stopped (crashed, or failed for a reason a later fetch can get
     * past) may leave one behind for the next fetch of the same object to the same destination to resume from;
     * safe to delete.
     */
    public static final String TEMP_SUFFIX = ".s3b-part";

    private final TempFile file;
    private final PieceLayout layout;
    /** The file's channel, held here so that {@link #write} and {@link #readPiece} reach it directly. */
    private final FileChannel channel;
    private final Object writeLock = new Object();
    private final Bitfield have;
    private final int[] crc32c;
    private byte[][] sha256;
    private final List<PieceObserver> observers = new CopyOnWriteArrayList<>();

    private PieceStore(TempFile file, PieceLayout layout) {
        this.file = file;
        this.layout = layout;
        this.channel = file.channel();
        this.have = new Bitfield(layout.pieceCount());
        this.crc32c = new int[layout.pieceCount()];
    }

    /**
     * Creates the temporary file for {@code destination} in the same directory (so the final rename is
     * atomic), sized to the object. The caller checks free space and writability first for a clear error.
     */
    public static PieceStore create(Path destination, PieceLayout layout) throws IOException {
        return new PieceStore(TempFile.create(destination, layout.objectSize()), layout);
    }

    /**
     * Opens {@code tempFile} (beside {@code destination}) for the object, creating it if needed and keeping the
     * bytes it holds, sized to the object: a fetch that resumes an interrupted one marks the pieces it finds
     * intact present ({@link #completePiece}). No piece is present in the new store.
     */
    public static PieceStore open(Path destination, Path tempFile, PieceLayout layout) throws IOException {
        return new PieceStore(TempFile.open(destination, tempFile, layout.objectSize()), layout);
    }

    /**
     * From now on {@link #abort()} and {@link #close()} leave the temporary file in place (for a later fetch to
     * resume from) instead of removing it. Nothing appears at the destination either way.
     */
    public void keepTempFile() {
        file.keep();
    }

    public Path destination() {
        return file.destination();
    }

    public Path tempFile() {
        return file.path();
    }

    public PieceLayout layout() {
        return layout;
    }

    /** The open file, for zero-copy reads of present pieces (e.g. a Netty {@code FileRegion}). */
    public FileChannel channel() {
        return channel;
    }

    /**
     * From now on each piece is recorded with its SHA-256 too ({@link #completePiece(int, int, byte[])}), as
     * a cluster broadcast needs to vouch for the pieces it read from S3 and to check those from peers. Call
     * before the first piece is written.
     */
    public synchronized void keepDigests() {
        if (sha256 == null) {
            sha256 = new byte[layout.pieceCount()][];
        }
    }

    /**
     * Is told of every piece that becomes present or is forgotten from now on, in the order it happens; the
     * pieces present already are reported at once. Observers are called under this store's lock, so they must
     * be quick and must not call back into the store (hand the work to another thread).
     */
    public interface PieceObserver {
        /** {@code piece} is written and recorded with this CRC32C. */
        void pieceCompleted(int piece, int crc32c);

        /** {@code piece} was present and is forgotten: its bytes are about to be replaced. */
        void pieceForgotten(int piece);
    }

    /** Adds an observer of pieces that land and are forgotten; see {@link PieceObserver}. */
    public synchronized void observe(PieceObserver observer) {
        observers.add(observer);
        for (int p = have.nextSet(0); p >= 0; p = have.nextSet(p + 1)) {
            observer.pieceCompleted(p, crc32c[p]);
        }
    }

    /** Stops telling {@code observer} of pieces. */
    public void stopObserving(PieceObserver observer) {
        observers.remove(observer);
    }

    /** Whether writers must give each piece's SHA-256 ({@link #keepDigests()} was called). */
    public synchronized boolean keepsDigests() {
        return sha256 != null;
    }

    /**
     * Writes all of {@code src} at {@code position} of the object. Writes from several threads (the S3 client's
     * event loops, the peer loops) take turns on a lock of this store: the file system serialises writes to one
     * file anyway (ext4 holds the inode's lock through each write), and a thread waiting in the kernel spins on
     * the lock's owner where one waiting here parks. A 1 GiB single-node fetch spent 0.7 of its 3-4 CPU-s in that
     * spin (docs/bench.md, "Node JVMs on JDK 25").
     */
    public void write(long position, ByteBuffer src) throws IOException {
        if (position < 0 || position + src.remaining() > layout.objectSize()) {
            throw new IndexOutOfBoundsException("write of " + src.remaining() + " bytes at " + position
                    + " outside object of " + layout.objectSize() + " bytes");
        }
        synchronized (writeLock) {
            long p = position;
            while (src.hasRemaining()) {
                p += channel.write(src, p);
            }
        }
    }

    /**
     * Records that {@code piece} is fully written with the given CRC32C. Returns false, changing nothing,
     * when the piece was already present.
     */
    public synchronized boolean completePiece(int piece, int pieceCrc32c) {
        return completePiece(piece, pieceCrc32c, null);
    }

    /**
     * Records that {@code piece} is fully written with the given CRC32C and SHA-256 (32 bytes, or null when
     * this store does not {@linkplain #keepDigests() keep digests}). Returns false, changing nothing, when the
     * piece was already present.
     */
    public synchronized boolean completePiece(int piece, int pieceCrc32c, byte[] pieceSha256) {
        if (sha256 != null && (pieceSha256 == null || pieceSha256.length != Sha256.BYTES)) {
            throw new IllegalArgumentException("this store keeps digests: piece " + piece + " needs its SHA-256");
        }
        if (!have.set(piece)) {
            return false;
        }
        crc32c[piece] = pieceCrc32c;
        if (sha256 != null) {
            sha256[piece] = pieceSha256.clone();
        }
        for (PieceObserver o : observers) {
            o.pieceCompleted(piece, pieceCrc32c);
        }
        return true;
    }

    /**
     * Marks a present piece missing again, so it can be written anew (a piece found wrong and fetched again
     * from S3). Until it is completed again it is not served. Returns false when it was not present.
     */
    public synchronized boolean forget(int piece) {
        if (!have.clear(piece)) {
            return false;
        }
        if (sha256 != null) {
            sha256[piece] = null;
        }
        for (PieceObserver o : observers) {
            o.pieceForgotten(piece);
        }
        return true;
    }

    /** The SHA-256 recorded for a present piece, or null when this store does not keep digests. */
    public synchronized byte[] sha256(int piece) {
        if (!have.get(piece)) {
            throw new IllegalStateException("piece " + piece + " is not present");
        }
        return sha256 == null ? null : sha256[piece].clone();
    }

    public synchronized boolean hasPiece(int piece) {
        return have.get(piece);
    }

    /** The CRC32C recorded for a present piece. */
    public synchronized int crc32c(int piece) {
        if (!have.get(piece)) {
            throw new IllegalStateException("piece " + piece + " is not present");
        }
        return crc32c[piece];
    }

    /** A snapshot of the pieces present. */
    public synchronized Bitfield bitfield() {
        return have.copy();
    }

    public synchronized int presentCount() {
        return have.cardinality();
    }

    public synchronized boolean isComplete() {
        return have.isComplete();
    }

    /** Reads a present piece into {@code dst} (which must have room for it). */
    public void readPiece(int piece, ByteBuffer dst) throws IOException {
        int len = layout.length(piece);
        if (dst.remaining() < len) {
            throw new IllegalArgumentException("buffer has " + dst.remaining() + " bytes, piece " + piece + " needs " + len);
        }
        long pos = layout.offset(piece);
        ByteBuffer slice = dst.slice();
        slice.limit(len);
        while (slice.hasRemaining()) {
            int n = channel.read(slice, pos + slice.position());
            if (n < 0) {
                throw new IOException("unexpected end of " + file.path() + " reading piece " + piece);
            }
        }
        dst.position(dst.position() + len);
    }

    /** Computes the CRC32C of a piece as it is on disk. */
    public int crc32cOnDisk(int piece) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(layout.length(piece));
        readPiece(piece, buf);
        buf.flip();
        CRC32C crc = new CRC32C();
        crc.update(buf);
        return (int) crc.getValue();
    }

    /**
     * Makes the object visible at the destination: flushes it to stable storage, then renames it over the
     * destination atomically. Every piece must be present. The file stays open, so peers can still be
     * served from {@link #channel()} (a rename does not disturb an open file on POSIX systems); {@link #close()}
     * releases it.
     */
    public synchronized Path commit() throws IOException {
        if (!have.isComplete()) {
            throw new IllegalStateException("cannot commit " + file.destination() + ": " + have + " pieces present");
        }
        return file.commit();
    }

    /** True once {@link #commit()} put the object at its destination. */
    public boolean isCommitted() {
        return file.isCommitted();
    }

    /**
     * Removes the temporary file, unless the object was committed or the file is {@linkplain #keepTempFile()
     * kept}. Idempotent; never throws (a file that cannot be deleted is logged).
     */
    public synchronized void abort() {
        file.abort();
    }

    public boolean isClosed() {
        return file.isClosed();
    }

    /** Closes the file; removes it too unless it was committed. */
    @Override
    public void close() {
        abort();
    }
}
