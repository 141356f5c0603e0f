package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.Bitfield;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says why phase 2 stands still: when this node may request pieces, lacks some and has stored none for
 * {@link #STILL_NANOS}, it logs once (until a piece is stored again) its first missing pieces, each with whether a
 * digest was vouched for it (an unvouched piece is not requested), whether its own S3 fetch is to deliver it, the
 * connected peers that hold it and those it is asked of and since when, and how many peers choke this node. A
 * fleet's node once waited 3 s for its last three pieces with every link idle and nothing at INFO to say why
 * (docs/results.md, session 45); this line later showed such a node's missing pieces all asked of one peer that sent
 * nothing for 2-3 s while six others held them (session 46). On the run's loop only; time is the injected ticker's.
 */
final class ExchangeStillReport {

    private static final Logger LOG = LoggerFactory.getLogger(ExchangeStillReport.class);

    /**
     * How long no piece may be stored before the report: at 2 s it missed an N = 8 node's 2 s wait for its last two
     * pieces; at 1 s it fired once in 20 N = 8 trials, and named the cause (docs/results.md, session 46).
     */
    static final long STILL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Missing pieces the report describes, the lowest first. */
    static final int SHOWN = 4;
    /** Holders and requests listed per piece. */
    private static final int PEERS_SHOWN = 3;

    private final Map<String, Peer> peers;
    private final BooleanSupplier exchanging;
    private final IntSupplier held;
    private final Supplier<Bitfield> have;
    private final IntPredicate vouched;
    private final IntPredicate fromS3;
    private final Ticker ticker;
    private final Supplier<String> self;
    private int lastHeld = -1;
    private long since;
    private boolean reported;

    /**
     * @param peers the run's connected peers, by id
     * @param exchanging whether requests may go out now (phase 2 allowed, the run neither complete nor closing)
     * @param held how many pieces this node holds (read every tick, so cheap)
     * @param have the pieces this node holds (a copy, taken only when the report is due)
     * @param vouched whether a digest was vouched for a piece (an unvouched one is not requested)
     * @param fromS3 whether this node's own S3 fetch is to deliver a piece (queued or in flight)
     * @param self this node's id, for the log
     */
    ExchangeStillReport(Map<String, Peer> peers, BooleanSupplier exchanging, IntSupplier held,
            Supplier<Bitfield> have, IntPredicate vouched, IntPredicate fromS3, Ticker ticker, Supplier<String> self) {
        this.peers = peers;
        this.exchanging = exchanging;
        this.held = held;
        this.have = have;
        this.vouched = vouched;
        this.fromS3 = fromS3;
        this.ticker = ticker;
        this.self = self;
    }

    /** Called on the run's tick: the report, when it is due now (it is logged), else null. */
    String check() {
        long now = ticker.read();
        int count = held.getAsInt();
        if (count != lastHeld || !exchanging.getAsBoolean()) {
            lastHeld = count;
            since = now;
            reported = false;
            return null;
        }
        if (reported || now - since < STILL_NANOS) {
            return null;
        }
        Bitfield pieces = have.get();
        if (pieces.isComplete()) {
            return null;
        }
        reported = true;
        String report = describe(pieces, now);
        LOG.info(report);
        return report;
    }

    private String describe(Bitfield mine, long now) {
        List<String> missing = new ArrayList<>();
        for (int p = mine.nextClear(0); p >= 0 && missing.size() < SHOWN; p = mine.nextClear(p + 1)) {
            missing.add(describe(p, now));
        }
        long choking = peers.values().stream().filter(p -> p.peerChoking).count();
        return String.format(Locale.ROOT, "%s: no piece stored for %d ms, missing %d of %d pieces; %d of %d peers"
                + " choke this node; %s", self.get(), TimeUnit.NANOSECONDS.toMillis(now - since),
                mine.size() - lastHeld, mine.size(), choking, peers.size(), String.join("; ", missing));
    }

    private String describe(int piece, long now) {
        List<String> holders = new ArrayList<>();
        List<String> asked = new ArrayList<>();
        int holding = 0;
        for (Peer p : peers.values()) {
            if (p.has.get(piece) && holding++ < PEERS_SHOWN) {
                holders.add(p.id);
            }
            Long at = p.askedAt.get(piece);
            if (at != null && asked.size() < PEERS_SHOWN) {
                asked.add(p.id + " " + TimeUnit.NANOSECONDS.toMillis(now - at) + " ms ago");
            }
        }
        return String.format(Locale.ROOT, "piece %d: %s%s, %d holders %s, asked of %s", piece,
                vouched.test(piece) ? "vouched" : "NOT vouched", fromS3.test(piece) ? ", due from S3" : "", holding,
                holders, asked.isEmpty() ? "none" : asked);
    }
}
