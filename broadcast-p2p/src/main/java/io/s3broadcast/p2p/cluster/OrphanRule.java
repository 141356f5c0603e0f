package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.cluster.Shares;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end-of-run rule (paper 000, failures): once phase 1 is over everywhere this node can see (its own list
 * empty, every member connected, every peer reporting no works left) and that has held for {@link #SETTLE_NANOS}
 * (messages in flight settle), pieces that this node lacks, that no connected peer holds (or nobody vouched for)
 * and that nobody is to fetch (a dead node's unfinished works, gaps between views of the membership) are fetched
 * from S3. The nodes that are not done share them out deterministically ({@link Shares#reassign}, survivors in
 * node id order), so each orphan is read about once; when orphans remain {@link #DISAGREE_NANOS} after a round
 * without anyone advertising work, views disagree and this node takes them all. Pieces under a check from S3 are
 * not orphans.
 * A member not connected yet holds the rule back until the connect grace ({@link Membership}) has passed: then it
 * counts as gone. (In a bounded overlay it holds the rule only, not the phase-2 gate: {@link #peersOutOfWork}.)
 *
 * <p>In a bounded overlay (more members than this node's peers, {@link Membership#bounded}) a node sees its peers
 * only: a piece none of them holds may still be on its way from further off. So the condition must hold for
 * {@link #QUIET_NANOS} with the orphans unchanged (no peer announced one of them meanwhile) and no piece stored
 * by this node (nothing is arriving: a node that still receives pieces waits),
 * and the orphans are shared out by the registry's members (every node sees the same list, so each orphan is read
 * about once); when orphans remain after that round, among this node and its peers that are not done (nodes that
 * are alive for sure); after that, this node takes them all. Every round waits for the quiet time again, so no
 * byte range stays unowned and a stale view costs at most extra S3 reads. On the run's loop only; time is the
 * injected ticker's.
 */
final class OrphanRule {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanRule.class);

    /** How long the orphan condition must hold before orphans are taken (messages in flight settle). */
    static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    /** In a bounded overlay, how long the orphans must stay the same before they are taken. */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(3);
    /**
     * In a full mesh, how long orphans that a round shared out may stay orphans before this node takes them all:
     * long enough for the nodes they went to to read them and say so. A node's messages wait behind the piece it is
     * sending on each connection: at N = 16 on 2.5 MB/s links a {@code GIVE_WORK_RESPONSE} took more than 10 s, and
     * when this wait was the settle time, four nodes each read the same five orphans again half a second after the
     * round had given them to a fifth (1.075 S from S3; docs/results.md, session 29).
     */
    static final long DISAGREE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Supplier<String> self;
    private final int pieceCount;
    private final Map<String, Peer> peers;
    private final Membership membership;
    private final Ticker ticker;
    private final BooleanSupplier ownPhase1Over;
    private final Supplier<Bitfield> have;
    private final IntPredicate accountedFor;
    private final IntSupplier workPieces;
    private final Consumer<List<PieceRun>> take;
    private long since = -1;
    private int sinceOrphans;
    private int sinceHeld;
    private int rounds;

    /**
     * @param self this node's id
     * @param peers the run's connected peers, by id
     * @param ownPhase1Over whether this node's own phase 1 is over: nothing left, fetching or asked for
     * @param have the pieces this node holds
     * @param accountedFor whether a piece this node lacks is no orphan: still to be fetched from S3 by this node,
     *     under a check from S3, held by a connected peer and vouched for (so it can be checked), or held by a
     *     peer dropped for being slow a short while ago ({@link DroppedPeers})
     * @param workPieces pieces per work of this node's reads
     * @param take hands this node's part of the orphans to its S3 fetch
     */
    OrphanRule(Supplier<String> self, int pieceCount, Map<String, Peer> peers, Membership membership, Ticker ticker,
            BooleanSupplier ownPhase1Over, Supplier<Bitfield> have, IntPredicate accountedFor, IntSupplier workPieces,
            Consumer<List<PieceRun>> take) {
        this.self = self;
        this.pieceCount = pieceCount;
        this.peers = peers;
        this.membership = membership;
        this.ticker = ticker;
        this.ownPhase1Over = ownPhase1Over;
        this.have = have;
        this.accountedFor = accountedFor;
        this.workPieces = workPieces;
        this.take = take;
    }

    /**
     * Phase 1 is over at this node's peers, the phase-2 gate's condition ({@link PhaseGate}): every peer last reported
     * an empty work list and, in a full mesh, every member is connected (a member not connected yet will connect,
     * with its share). In a bounded overlay a member not connected yet does not hold the gate: most members never
     * become this node's peers, and a node short of peers that waited for them up to the connect grace (5 s) kept
     * its phase 2 shut while its peers, with theirs open, found the pieces it would have passed on missing for the
     * orphan rule's quiet time (3 s) and read them from S3 again. The orphan rule itself still waits for them ({@link
     * #check}).
     */
    boolean peersOutOfWork() {
        if (!membership.bounded() && membership.anyPending()) {
            return false;
        }
        return everyPeerOutOfWork();
    }

    /** The orphan rule's condition at the peers: no member still expected to connect, every peer out of work. */
    private boolean settled() {
        return !membership.anyPending() && everyPeerOutOfWork();
    }

    private boolean everyPeerOutOfWork() {
        for (Peer p : peers.values()) {
            if (p.worksLeft != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * This node's loop did not run for {@code nanos} (a GC pause, a starved process; {@link Housekeeping}): that time
     * does not count towards the settle or quiet time. Nothing could be seen changing meanwhile, and what peers sent
     * meanwhile may still be queued behind this check, so a quiet time that spans a stall is no sign that nothing is on
     * its way. (Seen in {@code OverlayFetchIT}, 12 nodes in one starved JVM: a node took the rule after 4.4 s of
     * "quiet" across one 4.3 s gap between its ticks, and read again pieces another node had read.)
     */
    void loopStalled(long nanos) {
        if (since >= 0) {
            since = Math.min(since + nanos, ticker.read());
        }
    }

    /** A peer advertised works left: the next round shares orphans out again. */
    void peerHasWork() {
        rounds = 0;
    }

    /** Looks for orphans (every housekeeping tick); takes this node's part once the condition held long enough. */
    void check() {
        if (!ownPhase1Over.getAsBoolean() || !settled()) {
            since = -1;
            return;
        }
        Bitfield held = have.get();
        Bitfield orphans = orphans(held);
        if (orphans.cardinality() == 0) {
            since = -1;
            return;
        }
        long now = ticker.read();
        boolean bounded = membership.bounded();
        if (since < 0 || (bounded && (orphans.cardinality() != sinceOrphans || held.cardinality() != sinceHeld))) {
            since = now;
            sinceOrphans = orphans.cardinality();
            sinceHeld = held.cardinality();
            return;
        }
        if (now - since < (bounded ? QUIET_NANOS : rounds > 0 ? DISAGREE_NANOS : SETTLE_NANOS)) {
            return;
        }
        since = -1;
        int round = rounds++;
        List<String> survivors = survivors(bounded, round);
        boolean all = survivors.size() == 1;
        List<PieceRun> mine = Shares.reassign(orphans, new Bitfield(pieceCount), survivors.size(), workPieces.getAsInt())
                .get(survivors.indexOf(self.get()));
        LOG.info("{}: {} pieces nobody has or will fetch; this node fetches {} of them from S3{}", self.get(),
                orphans.cardinality(), mine.stream().mapToInt(PieceRun::count).sum(),
                all && round > 0 ? " (all: views disagree)" : bounded && round == 0 ? " (shared by the members)" : "");
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: the orphans {}; held by a connected peer (not vouched for): {}; members not connected: {}",
                    self.get(), runs(orphans), heldByPeers(orphans), notConnected());
        }
        take.accept(mine);
    }

    /** Which of {@code pieces} connected peers hold, by peer (for the debug log: held but not vouched for). */
    private Map<String, List<PieceRun>> heldByPeers(Bitfield pieces) {
        Map<String, List<PieceRun>> out = new TreeMap<>();
        for (Peer p : peers.values()) {
            Bitfield both = new Bitfield(pieceCount);
            for (int i = pieces.nextSet(0); i >= 0; i = pieces.nextSet(i + 1)) {
                if (p.has.get(i)) {
                    both.set(i);
                }
            }
            if (both.cardinality() > 0) {
                out.put(p.id, runs(both));
            }
        }
        return out;
    }

    /** Members this node has no connection to (gone after the connect grace, or not yet dialled). */
    private List<String> notConnected() {
        List<String> out = new ArrayList<>();
        for (String id : membership.members().keySet()) {
            if (!id.equals(self.get()) && !peers.containsKey(id)) {
                out.add(id);
            }
        }
        return out;
    }

    /** The set pieces as runs of consecutive pieces. */
    private List<PieceRun> runs(Bitfield pieces) {
        return Shares.reassign(pieces, new Bitfield(pieceCount), 1, Integer.MAX_VALUE).get(0);
    }

    /**
     * Who shares the orphans out in round {@code round}, in id order, this node among them: in a full mesh first
     * this node and its peers that are not done; in a bounded overlay first every member, then this node and its
     * peers that are not done; then this node alone.
     */
    private List<String> survivors(boolean bounded, int round) {
        List<String> survivors = new ArrayList<>();
        survivors.add(self.get());
        if (bounded && round == 0) {
            for (String id : membership.members().keySet()) {
                if (!id.equals(self.get())) {
                    survivors.add(id);
                }
            }
        } else if (round == (bounded ? 1 : 0)) {
            for (Peer p : peers.values()) {
                if (!p.done) {
                    survivors.add(p.id);
                }
            }
        }
        survivors.sort(null);
        return survivors;
    }

    private Bitfield orphans(Bitfield held) {
        Bitfield orphans = new Bitfield(pieceCount);
        for (int p = held.nextClear(0); p >= 0; p = held.nextClear(p + 1)) {
            if (!accountedFor.test(p)) {
                orphans.set(p);
            }
        }
        return orphans;
    }
}
