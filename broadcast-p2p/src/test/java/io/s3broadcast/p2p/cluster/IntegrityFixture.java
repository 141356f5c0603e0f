package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * The integrity components of one node wired as a run wires them, on fake time (one {@link ManualScheduler}
 * is both the run's loop and the disk threads: nothing runs until {@link #settle()}), over a real store in a
 * temporary directory and a fake S3 that holds {@link #object} and counts what is read again from it.
 */
final class IntegrityFixture implements AutoCloseable {

    static final int PIECE = 1024;

    final PieceLayout layout;
    final byte[] object;
    final ManualScheduler time = new ManualScheduler();
    final PieceStore store;
    final Vouches vouches;
    /** The peers in the registry. */
    final Set<String> members = new HashSet<>();
    /** "peer REASON" for every peer banned and told. */
    final List<String> sentences = new ArrayList<>();
    final BanList bans;
    /** Every piece read again from S3 (a piece read twice counts twice in {@link #piecesReread}). */
    final BitSet reread = new BitSet();
    int piecesReread;
    /** Pieces that were missing and were filled with S3's bytes by a check. */
    final List<Integer> added = new ArrayList<>();
    int checksEnded;
    final List<Throwable> failures = new ArrayList<>();
    /** When set, reads from S3 wait for it. */
    CompletableFuture<Void> s3Gate = CompletableFuture.completedFuture(null);
    final Disputes disputes;

    /** A node of a cluster with {@code members} besides it, over an object of {@code pieces} pieces. */
    IntegrityFixture(Path dir, int pieces, String... members) throws IOException {
        this(dir, pieces, PIECE, members);
    }

    /** As above, with pieces of {@code pieceSize} bytes (the last one half that). */
    IntegrityFixture(Path dir, int pieces, int pieceSize, String... members) throws IOException {
        this.members.addAll(List.of(members));
        layout = new PieceLayout((long) pieces * pieceSize - pieceSize / 2, pieceSize);
        object = new byte[(int) layout.objectSize()];
        new Random(7).nextBytes(object);
        store = PieceStore.create(dir.resolve("object"), layout);
        store.keepDigests();
        vouches = new Vouches(pieces);
        bans = new BanList(3, () -> "me", (peer, reason, why) -> sentences.add(peer + " " + reason));
        disputes = new Disputes(() -> "me", "test-object", store, vouches, this::expected, bans, this::readAgain, time,
                time, new Disputes.Run() {
                    @Override
                    public void pieceAdded(int piece) {
                        added.add(piece);
                    }

                    @Override
                    public void checksEnded() {
                        checksEnded++;
                    }

                    @Override
                    public void failed(Throwable error) {
                        failures.add(error);
                    }
                });
    }

    /** What a run expects of a piece from a peer. */
    byte[] expected(int piece) {
        return vouches.expected(piece, members::contains);
    }

    /** Runs everything that is due, and what that submits. */
    void settle() {
        time.runPending();
    }

    /** S3's bytes of {@code piece}. */
    byte[] truth(int piece) {
        int from = (int) layout.offset(piece);
        return Arrays.copyOfRange(object, from, from + layout.length(piece));
    }

    byte[] sha(int piece) {
        return sha(truth(piece));
    }

    static byte[] sha(byte[] bytes) {
        return Sha256.of(ByteBuffer.wrap(bytes));
    }

    static int crc(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return (int) c.getValue();
    }

    /** The bytes of {@code piece} with one flipped. */
    byte[] junk(int piece) {
        byte[] b = truth(piece);
        b[b.length / 2] ^= 1;
        return b;
    }

    /** Stores {@code bytes} as {@code piece}. */
    void put(int piece, byte[] bytes) throws IOException {
        store.write(layout.offset(piece), ByteBuffer.wrap(bytes));
        store.completePiece(piece, crc(bytes), sha(bytes));
    }

    /** The store holds S3's bytes of {@code piece}. */
    boolean holdsTruth(int piece) {
        return store.hasPiece(piece) && Arrays.equals(store.sha256(piece), sha(piece));
    }

    private CompletableFuture<Disputes.Reread> readAgain(BitSet pieces) {
        reread.or(pieces);
        piecesReread += pieces.cardinality();
        return s3Gate.thenApply(v -> new Disputes.Reread() {
            @Override
            public byte[] digest(int piece) {
                return sha(piece);
            }

            @Override
            public boolean copyInto(PieceStore into, int piece) throws IOException {
                boolean was = into.forget(piece);
                byte[] b = truth(piece);
                into.write(layout.offset(piece), ByteBuffer.wrap(b));
                into.completePiece(piece, crc(b), sha(b));
                return !was;
            }

            @Override
            public void close() {
            }
        });
    }

    @Override
    public void close() {
        store.close();
    }
}
