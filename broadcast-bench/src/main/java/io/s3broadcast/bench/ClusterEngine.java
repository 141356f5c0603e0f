package io.s3broadcast.bench;

import io.s3broadcast.spi.ClusterStrategyProvider;
import java.util.ServiceLoader;

/**
 * Whether a cluster engine ({@code ClusterStrategyProvider}, from {@code broadcast-p2p}) is registered: {@code demo}
 * runs a cluster only then, and tests of cluster strategies are skipped without one.
 */
final class ClusterEngine {

    private ClusterEngine() {
    }

    static boolean present() {
        return ServiceLoader.load(ClusterStrategyProvider.class).findFirst().isPresent();
    }
}
