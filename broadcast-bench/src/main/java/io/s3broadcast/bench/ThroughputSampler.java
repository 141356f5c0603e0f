package io.s3broadcast.bench;

import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * One node's bytes received over time, as its fetch reports them: the bytes of completed pieces (from S3 and from
 * peers) at the end of each {@link Churn#BUCKET_MILLIS} bucket of the wall clock. Listener rules: called on any
 * thread, it only records.
 */
final class ThroughputSampler implements FetchListener {

    private final ConcurrentSkipListMap<Long, Long> buckets = new ConcurrentSkipListMap<>();

    @Override
    public void bytesTransferred(FetchProgress progress) {
        long bucket = System.currentTimeMillis() / Churn.BUCKET_MILLIS * Churn.BUCKET_MILLIS;
        buckets.merge(bucket, progress.transferredBytes(), Math::max);
    }

    /** {@code [epoch millis of a bucket's start, bytes held at its end]}, in time order. */
    List<long[]> samples() {
        List<long[]> out = new ArrayList<>();
        for (Map.Entry<Long, Long> e : buckets.entrySet()) {
            out.add(new long[] {e.getKey(), e.getValue()});
        }
        return out;
    }

    /**
     * Aggregate throughput of all nodes, MB/s (10^6 bytes per second) per bucket from {@code t0Millis}: the sum over
     * nodes of the bytes each received in the bucket (a node's count carried over buckets it reported nothing in).
     */
    static List<Double> aggregate(List<List<long[]>> nodes, long t0Millis) {
        long last = nodes.stream().flatMap(List::stream).mapToLong(s -> s[0]).max().orElse(t0Millis);
        int count = (int) Math.max(0, (last - t0Millis) / Churn.BUCKET_MILLIS + 1);
        double[] bytes = new double[count];
        for (List<long[]> samples : nodes) {
            long before = 0;
            for (long[] s : samples) {
                int b = (int) Math.floorDiv(s[0] - t0Millis, Churn.BUCKET_MILLIS);
                if (b >= 0 && b < count) {
                    bytes[b] += s[1] - before;
                }
                before = s[1];
            }
        }
        List<Double> rates = new ArrayList<>(count);
        for (double b : bytes) {
            rates.add(SingleCommand.round(b / 1e6 / (Churn.BUCKET_MILLIS / 1e3), 2));
        }
        return rates;
    }
}
