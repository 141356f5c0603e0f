package io.s3broadcast.bench;

import io.s3broadcast.spi.ClusterStrategyProvider;
import java.util.ServiceLoader;

/** Whether a cluster engine is registered, so tests of cluster strategies run only once one is. */
final class ClusterEngine {

    private ClusterEngine() {
    }

    static boolean present() {
        return ServiceLoader.load(ClusterStrategyProvider.class).findFirst().isPresent();
    }
}
