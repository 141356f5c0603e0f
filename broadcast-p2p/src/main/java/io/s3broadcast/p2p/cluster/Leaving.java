package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.Bitfield;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node that leaves mid-run: its fetch was cancelled (by the application, or by {@code Broadcast.close}) before it
 * was complete. It stops reading S3 and requesting pieces, hands its unfinished works to its peers through phase
 * 1's give-away path ({@link ShareFetcher#leave}: thieves for {@link #GRACE_MILLIS}, then {@code WORKS_LEFT(0)} so
 * that the rest falls to the peers' orphan rule), and keeps serving meanwhile, the pieces only it holds first (peers
 * pick the rarest). This class says when it may say goodbye: once its works are handed on ({@link
 * ShareFetcher#handedOff}) and every piece it holds is held by a connected peer too (else that piece would be read
 * from S3 again), or no peer is left, or {@link #LIMIT_NANOS} after it began to leave, whatever is left. Then the
 * run finishes: {@code GOODBYE(NORMAL)}, which tells peers it left the run, and the registry. On the run's loop
 * only; time is the injected ticker's.
 */
final class Leaving {

    private static final Logger LOG = LoggerFactory.getLogger(Leaving.class);

    /**
     * A leaving node gives thieves this long to take its unfinished works before it releases the rest to its peers'
     * orphan rule.
     */
    static final long GRACE_MILLIS = 2_000;

    /** A leaving node says {@code GOODBYE} at the latest this long after it began to leave. */
    static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Ticker ticker;
    private final long startNanos;

    Leaving(Ticker ticker) {
        this.ticker = ticker;
        this.startNanos = ticker.read();
    }

    /**
     * Whether the node may go now; {@code held} and {@code peers} are read only when its works are handed on.
     *
     * @return -1 to stay, else the pieces it holds that no peer does (they will be read from S3 again)
     */
    int mayGo(boolean handedOff, Bitfield held, Collection<Peer> peers) {
        boolean late = elapsedMillis() >= TimeUnit.NANOSECONDS.toMillis(LIMIT_NANOS);
        if (peers.isEmpty()) {
            return 0;
        }
        if (!late && !handedOff) {
            return -1;
        }
        int only = onlyHere(held, peers);
        return late || only == 0 ? only : -1;
    }

    /** {@link #mayGo}, logged for node {@code self} when it may. */
    boolean mayGoNow(String self, boolean handedOff, Bitfield held, Collection<Peer> peers) {
        int only = mayGo(handedOff, held, peers);
        if (only < 0) {
            return false;
        }
        LOG.info("{}: leaves after {} ms{}", self, elapsedMillis(),
                only > 0 ? "; " + only + " pieces no peer took from it yet will be read from S3 again" : "");
        return true;
    }

    long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(ticker.read() - startNanos);
    }

    /** Pieces of {@code held} that no peer holds or announced (a done peer holds all). */
    static int onlyHere(Bitfield held, Collection<Peer> peers) {
        int only = 0;
        for (int p = held.nextSet(0); p >= 0; p = held.nextSet(p + 1)) {
            boolean elsewhere = false;
            for (Peer peer : peers) {
                if (peer.done || peer.has.get(p)) {
                    elsewhere = true;
                    break;
                }
            }
            if (!elsewhere) {
                only++;
            }
        }
        return only;
    }
}
