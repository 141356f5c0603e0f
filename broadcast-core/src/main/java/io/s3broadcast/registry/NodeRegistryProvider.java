package io.s3broadcast.registry;

/**
 * Makes {@link NodeRegistry}s for one spec scheme; found with {@link java.util.ServiceLoader}. Core provides
 * {@code static}, {@code broadcast-s3} provides {@code s3} and {@code broadcast-p2p} provides {@code zk}.
 */
public interface NodeRegistryProvider {

    /** The scheme served, as in {@link RegistrySpec#scheme()}: {@code static}, {@code s3}, {@code zk}. */
    String scheme();

    /**
     * A new, unstarted registry for {@code spec} (whose scheme is {@link #scheme()}).
     *
     * @throws IllegalArgumentException if the spec or the configuration does not fit this registry
     */
    NodeRegistry create(RegistrySpec spec, RegistryConfig config);
}
