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
 * How long the whole machine's CPU was saturated during a fleet trial. A trial's average CPU share hides a saturated
 * start: 16 node JVMs and the S3 server starting their work at once keep both cores of a small machine busy for the
 * first seconds, and then the links, not the transfer, are not what set the times. So this samples the aggregate
 * {@code cpu} line of {@code /proc/stat} every {@link #INTERVAL} between {@link #start()} and {@link #stop()} (busy =
 * total - idle - iowait, as a share of all cores over each interval) and tells the seconds of a window during which
 * the share was at least {@link #SATURATED}. Where {@code /proc/stat} cannot be read (not Linux) it tells nothing
 * (null) and never fails the run.
 */
final class CpuSaturation {

    private static final Logger LOG = LoggerFactory.getLogger(CpuSaturation.class);

    /** Time between readings. */
    static final Duration INTERVAL = Duration.ofMillis(250);

    /** Busy share of all cores at or above which an interval counts as saturated. */
    static final double SATURATED = 0.95;

    /** The whole machine's CPU counters on Linux. */
    static final Path PROC_STAT = Path.of("/proc/stat");

    /** Reads the text of {@code /proc/stat} (its first line, the aggregate {@code cpu} line, is enough). */
    interface StatReader {
        String read() throws IOException;
    }

    /** The first line of this machine's {@code /proc/stat} (the rest is per core and interrupts); "" if empty. */
    static String firstLine() throws IOException {
        try (var in = Files.newBufferedReader(PROC_STAT)) {
            String line = in.readLine();
            return line == null ? "" : line;
        }
    }

    /**
     * One interval between two readings.
     *
     * @param endMillis when it ended (the clock's epoch milliseconds)
     * @param millis its length
     * @param busy busy share of all cores over it, 0 to 1
     */
    record Sample(long endMillis, long millis, double busy) {

        boolean saturated() {
            return busy >= SATURATED;
        }
    }

    /** The aggregate counters of one reading, in clock ticks. */
    record Ticks(long busy, long total) {

        /**
         * The aggregate {@code cpu} line of {@code /proc/stat}'s text: user nice system idle iowait irq softirq steal
         * (guest and guest_nice are in user and nice already, so not added again); null if there is no such line.
         */
        static Ticks parse(String procStat) {
            for (String line : procStat.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (!f[0].equals("cpu") || f.length < 5) {
                    continue;
                }
                long total = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) {
                    total += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
                return new Ticks(total - idle, total);
            }
            return null;
        }
    }

    private final StatReader reader;
    private final PeriodicReadings readings;
    private final Clock clock;
    private final List<Sample> samples = new ArrayList<>();
    private Ticks last;
    private long lastMillis;
    private boolean unreadable;

    /** This machine's {@code /proc/stat}, read on a daemon thread of its own, on the system clock. */
    CpuSaturation() {
        this(CpuSaturation::firstLine, PeriodicReadings.ownThread("cpu-saturation"), Clock.systemUTC());
    }

    /**
     * @param reader reads {@code /proc/stat}
     * @param scheduler runs the readings (not shut down here)
     * @param clock the time of each reading
     */
    CpuSaturation(StatReader reader, ScheduledExecutorService scheduler, Clock clock) {
        this(reader, PeriodicReadings.on(scheduler), clock);
    }

    private CpuSaturation(StatReader reader, PeriodicReadings readings, Clock clock) {
        this.reader = reader;
        this.readings = readings;
        this.clock = clock;
    }

    /** Takes the first reading and one every {@link #INTERVAL} from now on. */
    CpuSaturation start() {
        readings.start(INTERVAL, this::read);
        return this;
    }

    /** Takes the last reading (so the interval since the one before counts) and stops. */
    void stop() {
        readings.stop();
    }

    /** One reading; false when the counters cannot be read (now or before). */
    private synchronized boolean read() {
        if (unreadable) {
            return false;
        }
        long now = clock.millis();
        Ticks ticks;
        try {
            ticks = Ticks.parse(reader.read());
        } catch (IOException | RuntimeException e) {
            ticks = null;
            LOG.debug("cannot read the machine's CPU from {}: {}", PROC_STAT, e.toString());
        }
        if (ticks == null) {
            // A machine without /proc/stat, or one that stopped answering: no figure rather than part of one.
            unreadable = true;
            return false;
        }
        if (last != null) {
            long total = ticks.total() - last.total();
            long busy = ticks.busy() - last.busy();
            // Counters that did not move or went back (a wrap, a reset, idle accounted late) tell nothing about the
            // interval: it is left out, so it does not count as saturated.
            if (total > 0 && busy >= 0 && now > lastMillis) {
                samples.add(new Sample(now, now - lastMillis, Math.min(1, (double) busy / total)));
            }
        }
        last = ticks;
        lastMillis = now;
        return true;
    }

    /** The intervals read so far, in time order; empty where {@code /proc/stat} could not be read. */
    synchronized List<Sample> samples() {
        return unreadable ? List.of() : List.copyOf(samples);
    }

    /**
     * Seconds between {@code fromMillis} and {@code toMillis} (the clock's epoch milliseconds) that fell in saturated
     * intervals (an interval partly in the window counts with its part in it); null where {@code /proc/stat} could not
     * be read.
     */
    synchronized Double saturatedSeconds(long fromMillis, long toMillis) {
        if (unreadable || last == null) {
            return null;
        }
        long millis = 0;
        for (Sample s : samples) {
            if (s.saturated()) {
                long start = Math.max(s.endMillis() - s.millis(), fromMillis);
                millis += Math.max(0, Math.min(s.endMillis(), toMillis) - start);
            }
        }
        return millis / 1e3;
    }
}
