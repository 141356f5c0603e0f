package io.s3broadcast.bench;

import java.lang.management.ManagementFactory;

/**
 * What the numbers were measured on, and how busy it was: the load average shows whether other work shared the
 * cores during the run.
 *
 * @param cores processors available to the JVM
 * @param java the Java runtime version
 * @param os operating system name, version and architecture
 * @param maxHeapBytes the JVM's maximum heap
 * @param loadAverageBefore the system's one-minute load average when the command started, or -1 if unknown
 * @param loadAverageAfter the same when it finished
 */
record Machine(int cores, String java, String os, long maxHeapBytes, double loadAverageBefore,
        double loadAverageAfter) {

    /** The one-minute load average now, or -1 where the platform has none. */
    static double loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? -1 : Math.round(load * 100) / 100.0;
    }

    /** CPU time this process has used so far (all threads, user and system), or -1 where the JVM cannot tell. */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** This machine now; {@code loadAverageBefore} is what {@link #loadAverage()} said at the start. */
    static Machine current(double loadAverageBefore) {
        return new Machine(Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                Runtime.getRuntime().maxMemory(), loadAverageBefore, loadAverage());
    }
}
