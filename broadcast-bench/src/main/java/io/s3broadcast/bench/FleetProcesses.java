package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Node processes of a fleet trial: started together at one signal, sampled from {@code /proc} while they run (CPU
 * seconds, peak RSS), timed from the signal to their exit.
 */
final class FleetProcesses {

    /** Clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ; 100 on Linux). */
    static final double TICKS = 100.0;

    private FleetProcesses() {
    }

    /**
     * @param seconds from the start signal to exit, or null if killed at the timeout
     * @param exitCode the exit code (-1 if killed)
     * @param cpuSeconds user + system CPU of the process and its waited-for children, last sample before exit
     * @param peakRssBytes VmHWM, last sample
     */
    record Result(Double seconds, int exitCode, Double cpuSeconds, Long peakRssBytes) {
    }

    interface Collector<T> {
        T collect(int node, Result result) throws IOException;
    }

    /** Starts every process at once, waits for all (killing those past {@code timeout}), then collects. */
    static <T> List<T> runAll(List<ProcessBuilder> builders, Duration timeout, Collector<T> collector)
            throws IOException, InterruptedException {
        int n = builders.size();
        List<Process> processes = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (ProcessBuilder pb : builders) {
                processes.add(pb.start());
            }
            return awaitAll(processes, start, timeout, collector);
        } finally {
            for (Process p : processes) {
                if (p.isAlive()) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            }
        }
    }

    /** Waits for processes started at {@code start}, sampling their CPU and RSS every 100 ms. */
    static <T> List<T> awaitAll(List<Process> processes, long start, Duration timeout, Collector<T> collector)
            throws IOException, InterruptedException {
        int n = processes.size();
        double[] cpu = new double[n];
        long[] rss = new long[n];
        long[] ended = new long[n];
        long deadline = start + timeout.toNanos();
        int running = n;
        while (running > 0) {
            running = 0;
            for (int i = 0; i < n; i++) {
                Process p = processes.get(i);
                if (ended[i] != 0) {
                    continue;
                }
                if (p.isAlive()) {
                    double c = cpuSeconds(p.pid());
                    if (c >= 0) {
                        cpu[i] = c;
                    }
                    rss[i] = Math.max(rss[i], peakRss(p.pid()));
                    running++;
                } else {
                    ended[i] = System.nanoTime();
                }
            }
            if (running > 0) {
                if (System.nanoTime() > deadline) {
                    break;
                }
                // The last ones may have exited since they were counted: then the loop ends on its next pass.
                Optional<Process> alive = processes.stream().filter(Process::isAlive).findFirst();
                if (alive.isPresent()) {
                    alive.get().waitFor(100, TimeUnit.MILLISECONDS);
                }
            }
        }
        List<T> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Process p = processes.get(i);
            boolean exited = !p.isAlive();
            if (!exited) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Double seconds = exited && ended[i] != 0 ? SingleCommand.round((ended[i] - start) / 1e9, 3) : null;
            out.add(collector.collect(i, new Result(seconds, exited ? p.exitValue() : -1,
                    SingleCommand.round(cpu[i], 2), rss[i] > 0 ? rss[i] : null)));
        }
        return out;
    }

    /** utime + stime + cutime + cstime of a live process, seconds; -1 if unreadable. */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields after the command: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            return ticks / TICKS;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** VmHWM of a live process in bytes, 0 if unreadable. */
    static long peakRss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    /** The last lines of a log, for error messages. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
