package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How full the fleet's download (or upload) links were, second by second, during a netns trial. The slowest node's
 * time says how much a contender lost against T*, not when: on the 8-node, 64 MiB, 5 MB/s fleet our nodes' links
 * were 2-6% full in the first second and 50-80% in the next three, the swarm's 75-82% and then 92-96%
 * (docs/results.md, session 30). So this reads one counter per node (the host end of its veth: {@code tx_bytes} is
 * what the node downloaded, {@code rx_bytes} what it uploaded, from and to S3 and peers, headers included) every
 * {@link #INTERVAL} between {@link #start()} and {@link #stop()}, and tells, for each second of a window, the bytes
 * all nodes moved as a share of what their links carry at their shaped rate (the counters' {@code capacities}, wire
 * bytes per second), and the same for each node over its own link ({@link #perSecondByCounter}: the node that
 * finishes last is one whose link went short for some seconds, session 33). Where a counter cannot be read it tells
 * nothing (null) and never fails the run.
 */
final class LinkUse {

    private static final Logger LOG = LoggerFactory.getLogger(LinkUse.class);

    /** Time between readings. */
    static final Duration INTERVAL = Duration.ofMillis(250);

    /** Reads one counter file. */
    interface CounterReader {
        long read(Path counter) throws IOException;
    }

    /** The counters at {@code millis} (the clock's epoch milliseconds), in the order of the counters. */
    record Reading(long millis, long[] bytes) {
        long sum() {
            long sum = 0;
            for (long b : bytes) {
                sum += b;
            }
            return sum;
        }
    }

    private final List<Path> counters;
    /** Each counter's link, wire bytes per second; not known where not positive. */
    private final double[] capacities;
    /** What the links carry together, or 0 where any link's capacity is not known. */
    private final double capacity;
    private final CounterReader reader;
    private final PeriodicReadings periodic;
    private final Clock clock;
    private final List<Reading> readings = new ArrayList<>();
    private boolean unreadable;

    /** {@code counters} read as files on a daemon thread of its own, on the system clock. */
    LinkUse(List<Path> counters, List<Double> capacities) {
        this(counters, capacities, c -> Long.parseLong(Files.readString(c).trim()),
                PeriodicReadings.ownThread("link-use"), Clock.systemUTC());
    }

    /**
     * @param counters the byte counters (one per node)
     * @param capacities what each counter's link carries, bytes per second as the counters count them (not known
     *     where not positive)
     * @param scheduler runs the readings (not shut down here)
     */
    LinkUse(List<Path> counters, List<Double> capacities, CounterReader reader, ScheduledExecutorService scheduler,
            Clock clock) {
        this(counters, capacities, reader, PeriodicReadings.on(scheduler), clock);
    }

    private LinkUse(List<Path> counters, List<Double> capacities, CounterReader reader, PeriodicReadings periodic,
            Clock clock) {
        if (capacities.size() != counters.size()) {
            throw new IllegalArgumentException(counters.size() + " counters but " + capacities.size() + " capacities");
        }
        this.counters = List.copyOf(counters);
        this.capacities = capacities.stream().mapToDouble(Double::doubleValue).toArray();
        boolean known = capacities.stream().allMatch(c -> c > 0);
        this.capacity = known ? capacities.stream().mapToDouble(Double::doubleValue).sum() : 0;
        this.reader = reader;
        this.periodic = periodic;
        this.clock = clock;
    }

    /** Takes the first reading and one every {@link #INTERVAL} from now on. */
    LinkUse start() {
        periodic.start(INTERVAL, this::read);
        return this;
    }

    /** Takes the last reading and stops. */
    void stop() {
        periodic.stop();
    }

    /** One reading; false when the counters cannot be read (now or before). */
    private synchronized boolean read() {
        if (unreadable) {
            return false;
        }
        long now = clock.millis();
        long[] bytes = new long[counters.size()];
        try {
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = reader.read(counters.get(i));
            }
        } catch (IOException | RuntimeException e) {
            // A node's veth gone, or no such files (not Linux): no figure rather than part of one.
            LOG.debug("cannot read the links' counters: {}", e.toString());
            unreadable = true;
            return false;
        }
        if (readings.isEmpty() || now > readings.get(readings.size() - 1).millis()) {
            readings.add(new Reading(now, bytes));
        }
        return true;
    }

    /**
     * For each second from {@code fromMillis} that starts before {@code toMillis}, the bytes counted in it as a share
     * of the capacity (between two readings the bytes are taken to come evenly), rounded to 0.01; a second the readings
     * do not cover to its end ends the list. Null where a counter could not be read or the capacity is not known.
     */
    synchronized List<Double> perSecond(long fromMillis, long toMillis) {
        if (unreadable || capacity <= 0 || readings.size() < 2) {
            return null;
        }
        return perSecond(fromMillis, toMillis, Reading::sum, capacity);
    }

    /**
     * {@link #perSecond} for each counter alone, over its own link's capacity, in the order of the counters: the
     * second by second of each node. Null where a counter could not be read or a link's capacity is not known.
     */
    synchronized List<List<Double>> perSecondByCounter(long fromMillis, long toMillis) {
        if (unreadable || capacity <= 0 || readings.size() < 2) {
            return null;
        }
        List<List<Double>> byCounter = new ArrayList<>();
        for (int i = 0; i < capacities.length; i++) {
            int counter = i;
            byCounter.add(perSecond(fromMillis, toMillis, r -> r.bytes()[counter], capacities[i]));
        }
        return byCounter;
    }

    private List<Double> perSecond(long fromMillis, long toMillis, ToLongFunction<Reading> bytes, double of) {
        long last = readings.get(readings.size() - 1).millis();
        List<Double> shares = new ArrayList<>();
        for (long s = fromMillis; s < toMillis && s + 1000 <= last; s += 1000) {
            double moved = bytesAt(s + 1000, bytes) - bytesAt(s, bytes);
            shares.add(SingleCommand.round(moved / of, 2));
        }
        return List.copyOf(shares);
    }

    /** {@code bytes} of the readings at {@code millis}, interpolated between the readings around it (the first before them). */
    private double bytesAt(long millis, ToLongFunction<Reading> bytes) {
        Reading before = readings.get(0);
        if (millis <= before.millis()) {
            return bytes.applyAsLong(before);
        }
        for (Reading r : readings) {
            if (r.millis() >= millis) {
                long b = bytes.applyAsLong(before);
                return b + (double) (bytes.applyAsLong(r) - b) * (millis - before.millis())
                        / (r.millis() - before.millis());
            }
            before = r;
        }
        return bytes.applyAsLong(before);
    }
}
