package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Goodbye;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peers this node will not serve, ask or take back for the rest of a run, and the rules that put them
 * there: {@link #strikeLimit} pieces with a wrong CRC32C (accidents, most likely: {@code GOODBYE(PROTOCOL_ERROR)}),
 * a lie that S3 or this node's own read contradicts ({@link #convict}: {@code GOODBYE(BAD_PIECE)}, reported in
 * the run's {@code Repair}), or a broken protocol rule ({@link #misbehaved}: {@code GOODBYE(MISBEHAVIOUR)}; {@link
 * #add} when the peer said goodbye itself). Bans
 * are local to this node. Thread-safe: serving a request reads it on a connection's loop.
 */
final class BanList {

    private static final Logger LOG = LoggerFactory.getLogger(BanList.class);

    /** Pieces with a bad CRC32C, or piece requests unanswered in time, from one peer before it is banned. */
    static final int THRESHOLD = 3;

    /** Tells a banned peer why and closes its connection, if it has one. */
    @FunctionalInterface
    interface Sentence {
        void banned(String peer, Goodbye.Reason reason, String why);
    }

    private final int strikeLimit;
    private final Supplier<String> self;
    private final Sentence sentence;
    private final Set<String> banned = ConcurrentHashMap.newKeySet();
    private final Set<String> liars = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> strikes = new ConcurrentHashMap<>();

    /**
     * @param strikeLimit pieces with a wrong CRC32C from one peer before it is banned
     * @param self        this node's id, for the log
     * @param sentence    tells a peer banned here ({@link #strike} at the limit, {@link #convict})
     */
    BanList(int strikeLimit, Supplier<String> self, Sentence sentence) {
        this.strikeLimit = strikeLimit;
        this.self = self;
        this.sentence = sentence;
    }

    boolean contains(String peer) {
        return banned.contains(peer);
    }

    /** Bans {@code peer} without a word (it broke the protocol, or banned this node); true if it was not yet. */
    boolean add(String peer) {
        return banned.add(peer);
    }

    /**
     * {@code p} sent something out of state or a claim it cannot back: logged, banned, told why and closed (on the
     * run's loop).
     */
    void misbehaved(Peer p, String what) {
        LOG.warn("{}: closing the connection to {}: it {}", self.get(), p, what);
        banned.add(p.id);
        p.link.goodbye(Goodbye.Reason.MISBEHAVIOUR, what);
    }

    int strikeLimit() {
        return strikeLimit;
    }

    /**
     * {@code piece} from {@code peer} failed its CRC32C check: counted and logged. Returns the count; at
     * {@link #strikeLimit} a peer not banned yet is banned and told.
     */
    int strike(String peer, int piece) {
        int n = strikes.merge(peer, 1, Integer::sum);
        LOG.warn("{}: piece {} from {} failed its CRC32C check ({} of {} before a ban)", self.get(), piece, peer, n,
                strikeLimit);
        if (n >= strikeLimit && banned.add(peer)) {
            LOG.warn("{}: banned {} after {} pieces with a wrong CRC32C; it is not served or asked again", self.get(),
                    peer, strikeLimit);
            sentence.banned(peer, Goodbye.Reason.PROTOCOL_ERROR, "banned: sent pieces with a wrong CRC32C");
        }
        return n;
    }

    /**
     * Bans {@code peer} for a lie ({@code why}: what it said against S3's word) and tells it. Returns false
     * when it was convicted before (nothing more to do).
     */
    boolean convict(String peer, String why) {
        banned.add(peer);
        if (!liars.add(peer)) {
            return false;
        }
        LOG.warn("{}: banned {}: it {}; it is not served or asked again", self.get(), peer, why);
        sentence.banned(peer, Goodbye.Reason.BAD_PIECE, why);
        return true;
    }

    /** {@code peer} was caught lying (not only banned). */
    boolean isLiar(String peer) {
        return liars.contains(peer);
    }

    /** The peers caught lying, sorted. */
    List<String> liars() {
        return liars.stream().sorted().toList();
    }
}
