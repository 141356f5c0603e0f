package io.s3broadcast.p2p.cluster;

import io.netty.buffer.ByteBuf;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.p2p.protocol.Piece;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A piece from a peer: checked and stored off the run's loop (on {@code disk}: its CRC32C, then its SHA-256
 * against the digest expected when it arrived), then judged on the loop: stored, a duplicate, a strike for a
 * wrong CRC32C ({@link BanList}), dropped when nobody vouched for it, or a lie: the sender is convicted, unless
 * it is a member relaying bytes that differ from another member's word, when S3 decides ({@link Disputes}).
 */
final class PieceReceiver {

    private static final Logger LOG = LoggerFactory.getLogger(PieceReceiver.class);

    /** What the run does with a judged piece; called on its loop. */
    interface Run {
        /** The run is stopping: pieces that come are ignored. */
        boolean closing();

        /** Something failed that fails the run. */
        void failed(Throwable error);

        /** {@code length} bytes came from {@code peer} (whatever they were worth: its upload rate). */
        void downloaded(String peer, int length);

        /** The request for {@code piece} to {@code peer} is settled without the piece: ask elsewhere. */
        void requestFailed(String peer, int piece);

        /** {@code piece} from {@code peer} is stored. */
        void stored(String peer, int piece, int length);

        /** Ask {@code peer} for more. */
        void pump(String peer);

        /** Ask every peer for more. */
        void pumpAll();
    }

    /** What became of a piece from a peer. */
    enum Arrival {
        /** Checked and stored. */
        STORED,
        /** Right, but the piece was already stored (endgame, or S3 got it too). */
        DUPLICATE,
        /** Its data does not match the CRC32C sent with it: an accident on the way, most likely. */
        CRC_MISMATCH,
        /** Its SHA-256 differs from the first-hand digest: the sender lies or relays a lie. */
        DIGEST_MISMATCH,
        /** Nobody vouched for it (or peers disagree): it cannot be checked and is dropped. */
        UNVOUCHED
    }

    private final Supplier<String> self;
    private final PieceStore store;
    private final PieceLayout layout;
    private final IntFunction<byte[]> expected;
    private final Vouches vouches;
    private final Predicate<String> members;
    private final BanList bans;
    private final Disputes disputes;
    private final Executor disk;
    private final Executor loop;
    private final Run run;

    /** @param expected the digest a piece from a peer must match now, null when none ({@link DigestExchange#expected}) */
    PieceReceiver(Supplier<String> self, PieceStore store, IntFunction<byte[]> expected, Vouches vouches,
            Predicate<String> members, BanList bans, Disputes disputes, Executor disk, Executor loop, Run run) {
        this.self = self;
        this.store = store;
        this.layout = store.layout();
        this.expected = expected;
        this.vouches = vouches;
        this.members = members;
        this.bans = bans;
        this.disputes = disputes;
        this.disk = disk;
        this.loop = loop;
        this.run = run;
    }

    /**
     * A {@code PIECE} from {@code p}: dropped unless asked for (or cancelled since), so what a peer can make this
     * node hold is bounded by the requests it has outstanding to that peer; else no longer outstanding, and
     * checked. This method owns it.
     */
    void arrived(Peer p, Piece piece) {
        if (!p.asked.get(piece.piece())) {
            // Cancelled (stored meanwhile: an endgame duplicate, or from S3) or timed out, but already on its way.
            LOG.debug("{}: piece {} from {} arrived unasked (cancelled or timed out): dropped", self.get(),
                    piece.piece(), p.id);
            piece.release();
            return;
        }
        p.unask(piece.piece());
        arrived(p.id, piece);
    }

    /** {@code piece}, asked of {@code from}, arrived: this method owns it (released once checked). */
    void arrived(String from, Piece piece) {
        int index = piece.piece();
        byte[] digest = expected.apply(index);
        try {
            disk.execute(() -> {
                Arrival arrival = Arrival.CRC_MISMATCH;
                byte[] sha = null;
                Throwable error = null;
                try {
                    if (piece.data().readableBytes() == layout.length(index) && piece.crcMatches()) {
                        ByteBuf data = piece.data();
                        ByteBuffer[] buffers = data.nioBuffers(data.readerIndex(), data.readableBytes());
                        sha = Sha256.of(buffers);
                        arrival = store(index, buffers, piece.crc32c(), sha, digest);
                    }
                } catch (IOException | RuntimeException e) {
                    error = e;
                } finally {
                    piece.release();
                }
                Arrival a = arrival;
                byte[] s = sha;
                Throwable err = error;
                loop.execute(() -> checked(from, index, a, s, digest, err));
            });
        } catch (RuntimeException e) {
            piece.release();
        }
    }

    /** On {@code disk}: a piece whose CRC32C matched, stored if its SHA-256 is the expected one. */
    private Arrival store(int index, ByteBuffer[] buffers, int crc32c, byte[] sha, byte[] digest) throws IOException {
        if (digest == null) {
            return Arrival.UNVOUCHED;
        }
        if (!Arrays.equals(digest, sha)) {
            return Arrival.DIGEST_MISMATCH;
        }
        if (store.hasPiece(index)) {
            return Arrival.DUPLICATE;
        }
        long position = layout.offset(index);
        for (ByteBuffer b : buffers) {
            int n = b.remaining();
            store.write(position, b);
            position += n;
        }
        return store.completePiece(index, crc32c, sha) ? Arrival.STORED : Arrival.DUPLICATE;
    }

    private void checked(String from, int index, Arrival arrival, byte[] sha, byte[] digest, Throwable error) {
        if (run.closing()) {
            return;
        }
        if (error != null) {
            run.failed(new BroadcastException("cannot store piece " + index + " from " + from + " in " + store.tempFile()
                    + ": " + error, error));
            return;
        }
        int length = layout.length(index);
        run.downloaded(from, length);
        switch (arrival) {
            case DIGEST_MISMATCH -> {
                run.requestFailed(from, index);
                lied(from, index, sha, digest);
                run.pumpAll();
            }
            case UNVOUCHED -> {
                run.requestFailed(from, index);
                LOG.debug("{}: piece {} from {} dropped: nobody vouched for its digest yet", self.get(), index, from);
                run.pumpAll();
            }
            case CRC_MISMATCH -> {
                run.requestFailed(from, index);
                bans.strike(from, index);
                run.pumpAll();
            }
            case STORED -> {
                disputes.takenFromPeer(index);
                if (!Arrays.equals(expected.apply(index), sha)) {
                    // The digest it matched was withdrawn while it was checked (its voucher was caught lying).
                    disputes.recheck(bitOf(index));
                }
                run.stored(from, index, length);
                run.pump(from);
            }
            case DUPLICATE -> {
                // A duplicate (endgame, or S3 got it too): whoever stored the piece reports it, so only this
                // request is settled here. Marking the piece stored from here could complete the run before the
                // storing peer's bytes are counted.
                run.requestFailed(from, index);
                run.pump(from);
            }
        }
    }

    /** {@code from} sent {@code index} with SHA-256 {@code sha}, not the expected {@code digest}. */
    private void lied(String from, int index, byte[] sha, byte[] digest) {
        List<String> vouchers = vouches.hasOwn(index) ? List.of() : vouches.vouchers(index);
        if (!vouchers.isEmpty() && !vouchers.contains(from) && members.test(from)) {
            // A member relays what it holds: S3's bytes, if it caught the voucher lying and repaired the piece
            // before we did. S3 settles it (one piece): the voucher is banned if wrong, the relayer if not.
            LOG.info("{}: piece {} from {} does not match the SHA-256 {} vouched for; asking S3 who is right",
                    self.get(), index, from, String.join(", ", vouchers));
            disputes.recheck(bitOf(index)).whenComplete((v, e) -> loop.execute(() -> {
                if (e == null && vouchers.stream().noneMatch(bans::isLiar)) {
                    disputes.convict(from, String.format("relayed piece %d with SHA-256 %s, but S3 agrees with %s's %s",
                            index, DigestExchange.hex(sha), String.join(", ", vouchers), DigestExchange.hex(digest)));
                }
                run.pumpAll();
            }));
            return;
        }
        disputes.convict(from, String.format("sent piece %d with SHA-256 %s, but %s read %s from S3", index,
                DigestExchange.hex(sha), vouches.hasOwn(index) ? "this node" : String.join(", ", vouchers),
                DigestExchange.hex(digest)));
    }

    private static BitSet bitOf(int piece) {
        BitSet b = new BitSet();
        b.set(piece);
        return b;
    }
}
