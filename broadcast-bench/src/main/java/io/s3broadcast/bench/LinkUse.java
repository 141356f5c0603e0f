package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How full the fleet's download (or upload) links were, second by second, during a netns trial. The slowest node's
 * time says how much a contender lost against T*, not when: on the 8-node, 64 MiB, 5 MB/s fleet our nodes' links
 * were 2-6% full in the first second and 50-80% in the next three, the swarm's 75-82% and then 92-96%
 * (docs/results.md, session 30). So this reads one counter per node (the host end of its veth: {@code tx_bytes} is
 * what the node downloaded, {@code rx_bytes} what it uploaded, from and to S3 and peers, headers included) every
 * {@link #INTERVAL} between {@link #start()} and {@link #stop()}, and tells, for each second of a window, the bytes
 * all nodes moved as a share of what their links carry at their shaped rate ({@code capacity}, wire bytes per
 * second). Where a counter cannot be read it tells nothing (null) and never fails the run.
 */
final class LinkUse {

    private static final Logger LOG = LoggerFactory.getLogger(LinkUse.class);

    /** Time between readings. */
    static final Duration INTERVAL = Duration.ofMillis(250);

    /** Reads one counter file. */
    interface CounterReader {
        long read(Path counter) throws IOException;
    }

    /** The counters' sum at {@code millis} (the clock's epoch milliseconds). */
    record Reading(long millis, long bytes) {
    }

    private final List<Path> counters;
    private final double capacity;
    private final CounterReader reader;
    private final PeriodicReadings periodic;
    private final Clock clock;
    private final List<Reading> readings = new ArrayList<>();
    private boolean unreadable;

    /** {@code counters} read as files on a daemon thread of its own, on the system clock. */
    LinkUse(List<Path> counters, double capacity) {
        this(counters, capacity, c -> Long.parseLong(Files.readString(c).trim()), PeriodicReadings.ownThread("link-use"),
                Clock.systemUTC());
    }

    /**
     * @param counters the byte counters to add up (one per node)
     * @param capacity what the links carry together, bytes per second as the counters count them
     * @param scheduler runs the readings (not shut down here)
     */
    LinkUse(List<Path> counters, double capacity, CounterReader reader, ScheduledExecutorService scheduler,
            Clock clock) {
        this(counters, capacity, reader, PeriodicReadings.on(scheduler), clock);
    }

    private LinkUse(List<Path> counters, double capacity, CounterReader reader, PeriodicReadings periodic,
            Clock clock) {
        this.counters = List.copyOf(counters);
        this.capacity = capacity;
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
        long sum = 0;
        try {
            for (Path c : counters) {
                sum += reader.read(c);
            }
        } catch (IOException | RuntimeException e) {
            // A node's veth gone, or no such files (not Linux): no figure rather than part of one.
            LOG.debug("cannot read the links' counters: {}", e.toString());
            unreadable = true;
            return false;
        }
        if (readings.isEmpty() || now > readings.get(readings.size() - 1).millis()) {
            readings.add(new Reading(now, sum));
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
        long last = readings.get(readings.size() - 1).millis();
        List<Double> shares = new ArrayList<>();
        for (long s = fromMillis; s < toMillis && s + 1000 <= last; s += 1000) {
            double bytes = bytesAt(s + 1000) - bytesAt(s);
            shares.add(SingleCommand.round(bytes / capacity, 2));
        }
        return shares;
    }

    /** The counters' sum at {@code millis}, interpolated between the readings around it (the first before them). */
    private double bytesAt(long millis) {
        Reading before = readings.get(0);
        if (millis <= before.millis()) {
            return before.bytes();
        }
        for (Reading r : readings) {
            if (r.millis() >= millis) {
                return before.bytes() + (double) (r.bytes() - before.bytes()) * (millis - before.millis())
                        / (r.millis() - before.millis());
            }
            before = r;
        }
        return before.bytes();
    }
}
