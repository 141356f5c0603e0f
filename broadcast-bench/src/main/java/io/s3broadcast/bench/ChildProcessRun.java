package io.s3broadcast.bench;

/**
 * What a download that ran in a process of its own ({@link NodeJvmMethod}, {@link Aria2Method}) measured.
 *
 * @param fetchSeconds the download as the process timed it itself (a node JVM: from {@code Broadcast.fetch} to
 *     the file in place, start-up not included), or null when it does not say (then the bench's wall time counts)
 * @param processSeconds from the process's start to its exit
 * @param cpuSeconds user + system CPU of the process, start-up included
 * @param peakRssBytes its peak resident set, or null
 * @param buildSeconds a node JVM's {@code Broadcast.builder().build()} (its S3 client made), before the fetch and
 *     not in {@code fetchSeconds}; null for other processes
 */
record ChildProcessRun(Double fetchSeconds, double processSeconds, Double cpuSeconds, Long peakRssBytes,
        Double buildSeconds) {

    ChildProcessRun(Double fetchSeconds, double processSeconds, Double cpuSeconds, Long peakRssBytes) {
        this(fetchSeconds, processSeconds, cpuSeconds, peakRssBytes, null);
    }
}
