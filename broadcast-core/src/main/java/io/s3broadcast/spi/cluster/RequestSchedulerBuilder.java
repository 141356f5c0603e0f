package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * Builds a {@link RequestScheduler}: the pieces held at the start, the piece selector, this node's S3 fetch for the
 * overlap rule, the pipeline depth and its cap, and the clock and window of the peers' rate meters.
 */
public final class RequestSchedulerBuilder {

    /** Default requests outstanding per peer. */
    public static final int DEFAULT_MAX_REQUESTS_PER_PEER = 8;

    /**
     * Least depth of {@link #configure}'s adaptive depth, and its depth before a peer's first piece (a
     * deeper start could outlast the request timeout on a link shared by many uploads).
     */
    public static final int ADAPTIVE_FLOOR = 2;

    /**
     * The {@link #frontWindow} for an object whose ETag is a single-part MD5, as a fraction of its pieces:
     * {@code pieceCount / FRONT_WINDOW_DIVISOR}. Chosen on the fleet (docs/results.md, session 25; N = 16, 256 MiB):
     * the nodes' median hashing after the last piece was 0.2-1.4 s with a quarter, 1.2-1.3 s with an eighth or a
     * half, 4.1-4.6 s with none, and phase 2 took as long with each.
     */
    public static final int FRONT_WINDOW_DIVISOR = 4;

    /** Default window over which a peer's delivery rate is measured. */
    public static final Duration DEFAULT_RATE_WINDOW = Duration.ofSeconds(5);

    final int pieceCount;
    Bitfield have;
    PieceSelector selector = PieceSelector.rarest();
    SourcePieces source = SourcePieces.NONE;
    int maxRequestsPerPeer = DEFAULT_MAX_REQUESTS_PER_PEER;
    RequestDepth depth;
    Ticker ticker = Ticker.systemTicker();
    Duration rateWindow = DEFAULT_RATE_WINDOW;
    int frontWindow;

    RequestSchedulerBuilder(int pieceCount) {
        if (pieceCount < 0) {
            throw new IllegalArgumentException("pieceCount must be >= 0, was " + pieceCount);
        }
        this.pieceCount = pieceCount;
    }

    /** Pieces this node already holds. Default none. */
    public RequestSchedulerBuilder have(Bitfield have) {
        this.have = have.copy();
        return this;
    }

    /** Default {@link PieceSelector#rarest()}. */
    public RequestSchedulerBuilder selector(PieceSelector selector) {
        this.selector = Objects.requireNonNull(selector, "selector");
        return this;
    }

    /**
     * Requests go first to the candidates among the {@code pieces} pieces from the lowest one this node lacks,
     * then to the rest (see {@link RequestScheduler}); for an object verified by a sequential digest, so the
     * hashing keeps up with the transfer. Default 0: no window.
     */
    public RequestSchedulerBuilder frontWindow(int pieces) {
        if (pieces < 0) {
            throw new IllegalArgumentException("frontWindow must be >= 0, was " + pieces);
        }
        this.frontWindow = pieces;
        return this;
    }

    /**
     * The front window for {@code object} cut into {@code pieceCount} pieces: a {@link #FRONT_WINDOW_DIVISOR
     * fraction} of the pieces (at least one) when the object's ETag is the MD5 of the whole object, which
     * can only be hashed in order; 0 otherwise (a multipart ETag or a checksum is hashed per part or piece).
     */
    public static int frontWindowFor(ObjectInfo object, int pieceCount) {
        boolean sequential = object.eTagDigest().filter(ObjectChecksum::fullObject).isPresent();
        return sequential && pieceCount > 0 ? Math.max(1, pieceCount / FRONT_WINDOW_DIVISOR) : 0;
    }

    /** This node's S3 fetch (its {@link WorkList}), for the overlap rule. Default {@link SourcePieces#NONE}. */
    public RequestSchedulerBuilder source(SourcePieces source) {
        this.source = Objects.requireNonNull(source, "source");
        return this;
    }

    /** Requests outstanding to one peer at most. Default {@value #DEFAULT_MAX_REQUESTS_PER_PEER}. */
    public RequestSchedulerBuilder maxRequestsPerPeer(int maxRequestsPerPeer) {
        if (maxRequestsPerPeer <= 0) {
            throw new IllegalArgumentException("maxRequestsPerPeer must be > 0, was " + maxRequestsPerPeer);
        }
        this.maxRequestsPerPeer = maxRequestsPerPeer;
        return this;
    }

    /**
     * The settings of {@code config}: its {@code maxRequestsPerPeer} as the cap, its ticker, and the depth
     * {@link RequestDepth#adaptive adaptive} over its {@code requestQueueTime} (from
     * {@value #ADAPTIVE_FLOOR} requests, also before the first piece, up to the cap), or fixed at the cap
     * when that is zero.
     */
    public RequestSchedulerBuilder configure(ClusterConfig config) {
        maxRequestsPerPeer(config.maxRequestsPerPeer());
        ticker(config.ticker());
        return depth(depthFor(config.maxRequestsPerPeer(), config.requestQueueTime()));
    }

    /**
     * The depth {@link #configure} sets for a cap of {@code maxRequestsPerPeer} and a queue time of
     * {@code queueTime}: adaptive from {@value #ADAPTIVE_FLOOR} up to the cap, or fixed at the cap when the queue
     * time is zero (the simulator builds its nodes' schedulers with it too).
     */
    public static RequestDepth depthFor(int maxRequestsPerPeer, Duration queueTime) {
        return queueTime.isZero() ? RequestDepth.fixed(maxRequestsPerPeer)
                : RequestDepth.adaptive(queueTime, Math.min(ADAPTIVE_FLOOR, maxRequestsPerPeer), ADAPTIVE_FLOOR,
                        maxRequestsPerPeer);
    }

    /**
     * The pipeline depth per peer, within {@code maxRequestsPerPeer}. Default
     * {@code RequestDepth.fixed(maxRequestsPerPeer)}.
     */
    public RequestSchedulerBuilder depth(RequestDepth depth) {
        this.depth = Objects.requireNonNull(depth, "depth");
        return this;
    }

    /** The clock of the peers' rate meters. Default the system ticker. */
    public RequestSchedulerBuilder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    /** Window over which a peer's delivery rate is measured. Default 5 s. */
    public RequestSchedulerBuilder rateWindow(Duration rateWindow) {
        Objects.requireNonNull(rateWindow, "rateWindow");
        if (rateWindow.isZero() || rateWindow.isNegative()) {
            throw new IllegalArgumentException("rateWindow must be > 0, was " + rateWindow);
        }
        this.rateWindow = rateWindow;
        return this;
    }

    public RequestScheduler build() {
        return new RequestScheduler(this);
    }
}
