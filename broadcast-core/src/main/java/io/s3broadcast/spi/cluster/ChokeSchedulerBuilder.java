package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.ClusterConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * Builds a {@link ChokeScheduler}: its clock, interval and rate window, and the {@link ChokePolicy} its settings make
 * (the kind, slots, optimistic period, least time between flips, and for the cooperative one the cap from the
 * pieces held, {@link PiecesHeldCap}). Defaults are BitTorrent's.
 */
public final class ChokeSchedulerBuilder {

    private ChokePolicy.Kind kind = ChokePolicy.Kind.TIT_FOR_TAT;
    private Ticker ticker = Ticker.systemTicker();
    private Random random = new Random();
    private int slots = 4;
    private Duration interval = Duration.ofSeconds(10);
    private int optimisticEvery = 3;
    private Duration minFlipInterval = Duration.ofSeconds(10);
    private Duration rateWindow = Duration.ofSeconds(20);
    private IntSupplier piecesHeld;

    ChokeSchedulerBuilder() {
    }

    /**
     * How many pieces this node holds now (thread-safe): the cooperative policy then unchokes at most
     * {@value PiecesHeldCap#UNCHOKED_PER_PIECE} peers per piece held. Default none: no such bound.
     */
    public ChokeSchedulerBuilder piecesHeld(IntSupplier piecesHeld) {
        this.piecesHeld = Objects.requireNonNull(piecesHeld, "piecesHeld");
        return this;
    }

    /** The clock. Default the system ticker. */
    public ChokeSchedulerBuilder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    /** Draws optimistic unchokes; seed it for reproducible decisions. Default unseeded. */
    public ChokeSchedulerBuilder random(Random random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /**
     * The settings of {@code config}: its ticker, choke policy and slots, its {@code chokeInterval} as the
     * interval and the least time between flips, and twice it as the rate window.
     */
    public ChokeSchedulerBuilder configure(ClusterConfig config) {
        Duration interval = config.chokeInterval();
        // interval + interval, not multipliedBy(2): that multiplies BigDecimals, and BigDecimal's class
        // initialisation cost a fresh node JVM ~20 ms of CPU here, between the HEAD and the run's first request.
        return ticker(config.ticker()).policy(config.chokePolicy()).slots(config.unchokeSlots())
                .interval(interval).minFlipInterval(interval).rateWindow(interval.plus(interval));
    }

    /** The policy. Default {@link ChokePolicy.Kind#TIT_FOR_TAT}. */
    public ChokeSchedulerBuilder policy(ChokePolicy.Kind policy) {
        this.kind = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** The policy by name ({@code cooperative} or {@code tit-for-tat}), as {@link ChokePolicy.Kind#parse}. */
    public ChokeSchedulerBuilder policy(String policy) {
        return policy(ChokePolicy.Kind.parse(Objects.requireNonNull(policy, "policy")));
    }

    /**
     * Regular unchoke slots, k: tit-for-tat unchokes k peers plus an optimistic one; cooperative unchokes
     * up to k + 1 interested peers (the last optimistic when more want to be). Default 4.
     */
    public ChokeSchedulerBuilder slots(int slots) {
        if (slots < 0) {
            throw new IllegalArgumentException("slots must be >= 0, was " + slots);
        }
        this.slots = slots;
        return this;
    }

    /** Time between decisions. Default 10 s. */
    public ChokeSchedulerBuilder interval(Duration interval) {
        this.interval = positive(interval, "interval");
        return this;
    }

    /** Decisions between draws of the optimistic unchoke. Default 3. */
    public ChokeSchedulerBuilder optimisticEvery(int intervals) {
        if (intervals <= 0) {
            throw new IllegalArgumentException("optimisticEvery must be > 0, was " + intervals);
        }
        this.optimisticEvery = intervals;
        return this;
    }

    /** Least time between two flips (choke/unchoke) of one connection. Default 10 s. */
    public ChokeSchedulerBuilder minFlipInterval(Duration minFlipInterval) {
        Objects.requireNonNull(minFlipInterval, "minFlipInterval");
        if (minFlipInterval.isNegative()) {
            throw new IllegalArgumentException("minFlipInterval must be >= 0, was " + minFlipInterval);
        }
        this.minFlipInterval = minFlipInterval;
        return this;
    }

    /** Window of the rate meters. Default 20 s. */
    public ChokeSchedulerBuilder rateWindow(Duration rateWindow) {
        this.rateWindow = positive(rateWindow, "rateWindow");
        return this;
    }

    public ChokeScheduler build() {
        return new ChokeScheduler(ticker, interval, rateWindow, policy());
    }

    /** The policy these settings make: its slots, optimistic period, least time between flips and cap. */
    private ChokePolicy policy() {
        long optimisticNanos = interval.toNanos() * optimisticEvery;
        return switch (kind) {
            case TIT_FOR_TAT -> ChokePolicy.titForTat(slots, optimisticNanos, minFlipInterval.toNanos(), random);
            case COOPERATIVE -> ChokePolicy.cooperative(slots + 1, optimisticNanos, minFlipInterval.toNanos(), random,
                    piecesHeld == null ? Choker.NO_CAP : new PiecesHeldCap(piecesHeld));
        };
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + d);
        }
        return d;
    }
}
