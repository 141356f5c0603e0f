package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The JSON line of {@code single}; every field is described in {@code docs/bench.md}.
 *
 * @param command always {@code single}
 * @param size object size in bytes
 * @param endpointKind {@code embedded} or {@code external}
 * @param server server name, e.g. {@code s3proxy}
 * @param endpoint the endpoint URL the methods read from (the proxy's with {@code --s3-profile})
 * @param s3Profile the S3 profile of the proxy the methods read through, or null for none
 * @param bucket the object's bucket
 * @param key the object's key
 * @param trials timed trials per method
 * @param warmup untimed rounds run before the trials
 * @param fsync whether every method's time includes making the file durable (ours always fsyncs; the others get an
 *     fsync from the bench inside the timed region unless {@code --no-fsync})
 * @param sha256 the object's SHA-256, hex
 * @param sha256Source {@code seeded} (computed from the generator) or {@code firstPlainDownload}
 * @param order per trial, the order in which the methods ran
 * @param methods per method name, its settings and results
 * @param ratio median MB/s of ours divided by the Transfer Manager's, or null when either did not run
 * @param ratioAria2 median MB/s of ours divided by aria2c's, or null when either did not run
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "size", "endpointKind", "server", "endpoint", "bucket", "key", "trials", "warmup",
        "fsync", "sha256", "sha256Source", "order", "methods", "ratio", "ratioAria2", "machine"})
record SingleReport(
        String command,
        long size,
        String endpointKind,
        String server,
        String endpoint,
        String s3Profile,
        String bucket,
        String key,
        int trials,
        int warmup,
        boolean fsync,
        String sha256,
        String sha256Source,
        List<List<String>> order,
        Map<String, MethodReport> methods,
        Double ratio,
        Double ratioAria2,
        Machine machine) {

    /**
     * One method's results.
     *
     * @param settings the settings it ran with
     * @param seconds wall time of each trial, in order; null for a failed trial
     * @param secondsToLastByte the part of each trial until the object's last byte was in the file, before any
     *     verification, fsync or rename; null for a failed trial
     * @param cpuSeconds CPU time of the whole process (all threads, user and system, the embedded server's too)
     *     during each trial; for a method run in a process of its own, that process's CPU (start-up included);
     *     null for a failed trial or where it cannot be told
     * @param processSeconds for a method run in a process of its own (aria2, ours with {@code --fresh-jvm}): each
     *     trial's process from start to exit (a JVM's start-up included); null entries otherwise
     * @param rates MB/s (10^6 bytes per second) of each trial; null for a failed trial
     * @param median median of the successful trials' rates, or null when none succeeded
     * @param sha256Matches per trial, whether the file had the object's SHA-256; null for a failed trial
     * @param sha256Match true when every trial succeeded and produced a file with the object's SHA-256
     * @param errors what went wrong, one entry per failed trial
     */
    @JsonPropertyOrder({"settings", "seconds", "secondsToLastByte", "cpuSeconds", "processSeconds", "rates", "median", "sha256Matches", "sha256Match", "errors"})
    record MethodReport(
            Map<String, Object> settings,
            List<Double> seconds,
            List<Double> secondsToLastByte,
            List<Double> cpuSeconds,
            List<Double> processSeconds,
            List<Double> buildSeconds,
            List<Double> rates,
            Double median,
            List<Boolean> sha256Matches,
            boolean sha256Match,
            List<String> errors) {
    }
}
