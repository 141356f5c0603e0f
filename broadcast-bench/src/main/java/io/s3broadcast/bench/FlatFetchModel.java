package io.s3broadcast.bench;

import io.s3broadcast.testkit.proxy.S3Profile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * What an S3 profile predicts for one node's flat fetch: the object in ranges of {@code rangeSize}, fetched over
 * {@code connections} connections, each range after its own first-byte latency at its own drawn rate (capped per
 * connection), all active ranges sharing the node's download link and the aggregate cap in proportion to their
 * rates. A fluid simulation, repeated with fresh draws; the spread of its results is the prediction.
 */
final class FlatFetchModel {

    private FlatFetchModel() {
    }

    /** Sorted completion times of {@code runs} simulated fetches. */
    static double[] simulate(S3Profile profile, long size, long rangeSize, int connections, long link, int runs,
            long seed) {
        Random random = new Random(seed);
        double[] out = new double[runs];
        for (int r = 0; r < runs; r++) {
            out[r] = once(profile, size, rangeSize, connections, link, random);
        }
        Arrays.sort(out);
        return out;
    }

    private static double once(S3Profile profile, long size, long rangeSize, int connections, long link, Random random) {
        List<Long> ranges = new ArrayList<>();
        for (long off = 0; off < size; off += rangeSize) {
            ranges.add(Math.min(rangeSize, size - off));
        }
        double cap = link > 0 ? link : Double.POSITIVE_INFINITY;
        if (profile.aggregateCap() > 0) {
            cap = Math.min(cap, profile.aggregateCap());
        }
        int next = 0;
        double now = 0;
        double[] remaining = new double[connections];
        double[] rate = new double[connections];
        double[] startsAt = new double[connections];
        boolean[] busy = new boolean[connections];
        while (true) {
            for (int c = 0; c < connections && next < ranges.size(); c++) {
                if (!busy[c]) {
                    busy[c] = true;
                    remaining[c] = ranges.get(next++);
                    double r = profile.rates() == null ? Double.POSITIVE_INFINITY : profile.rates().draw(random);
                    if (profile.perConnectionCap() > 0) {
                        r = Math.min(r, profile.perConnectionCap());
                    }
                    rate[c] = r;
                    startsAt[c] = now + profile.firstByte().draw(random) / 1e9;
                }
            }
            double sum = 0;
            boolean any = false;
            for (int c = 0; c < connections; c++) {
                if (busy[c]) {
                    any = true;
                    if (startsAt[c] <= now) {
                        sum += rate[c];
                    }
                }
            }
            if (!any) {
                return now;
            }
            double scale = sum > cap ? cap / sum : 1;
            double step = Double.POSITIVE_INFINITY;
            for (int c = 0; c < connections; c++) {
                if (!busy[c]) {
                    continue;
                }
                if (startsAt[c] > now) {
                    step = Math.min(step, startsAt[c] - now);
                } else {
                    double eff = Double.isInfinite(rate[c]) ? (Double.isInfinite(cap) ? 1e12 : cap) : rate[c] * scale;
                    step = Math.min(step, remaining[c] / eff);
                }
            }
            for (int c = 0; c < connections; c++) {
                if (busy[c] && startsAt[c] <= now) {
                    double eff = Double.isInfinite(rate[c]) ? (Double.isInfinite(cap) ? 1e12 : cap) : rate[c] * scale;
                    remaining[c] -= eff * step;
                    if (remaining[c] <= 1e-6) {
                        busy[c] = false;
                    }
                }
            }
            now += step;
        }
    }

    static double quantile(double[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }
}
