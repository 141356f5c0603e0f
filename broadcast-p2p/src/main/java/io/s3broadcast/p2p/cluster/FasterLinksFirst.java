package io.s3broadcast.p2p.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The {@link Dialer}'s choice among members to dial: at random, a member whose link measured fast when it was a peer
 * before more likely. Weight 1, plus its measured rate over the best measured rate among the candidates (up to 2 in
 * all), so an unmeasured member is still picked about half as often as the fastest. On the run's loop only.
 */
final class FasterLinksFirst {

    private final Random random;
    private final Map<String, Double> rates = new HashMap<>();

    FasterLinksFirst(Random random) {
        this.random = random;
    }

    /** Member {@code id}'s link, as a peer that was lost, delivered {@code rate} bytes per second (0: unmeasured). */
    void measured(String id, double rate) {
        if (rate > 0) {
            rates.put(id, rate);
        }
    }

    /** One of {@code candidates} (not empty), at random by the weights above. */
    String pick(List<String> candidates) {
        double best = 0;
        for (String id : candidates) {
            best = Math.max(best, rates.getOrDefault(id, 0.0));
        }
        double[] weights = new double[candidates.size()];
        double total = 0;
        for (int i = 0; i < weights.length; i++) {
            double rate = rates.getOrDefault(candidates.get(i), 0.0);
            weights[i] = 1 + (best > 0 ? rate / best : 0);
            total += weights[i];
        }
        double x = random.nextDouble() * total;
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return candidates.get(i);
            }
        }
        return candidates.get(weights.length - 1);
    }
}
