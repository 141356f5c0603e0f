package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Bench seam: a handler put first in every peer channel of one node (by its configured node id), so that a bench
 * running many nodes in one JVM can give each node its own emulated link (rate limits on its peer traffic). Empty
 * outside the bench; nothing in the library installs one.
 */
public final class LinkEmulation {

    static final String NAME = "link-emulation";

    private static final Map<String, Supplier<? extends ChannelHandler>> HANDLERS = new ConcurrentHashMap<>();

    private LinkEmulation() {
    }

    /** From now on, every new peer channel of node {@code nodeId} gets a handler from {@code handler} first. */
    public static void install(String nodeId, Supplier<? extends ChannelHandler> handler) {
        HANDLERS.put(Objects.requireNonNull(nodeId), Objects.requireNonNull(handler));
    }

    /** Stops adding handlers to node {@code nodeId}'s new channels. */
    public static void remove(String nodeId) {
        HANDLERS.remove(nodeId);
    }

    static void apply(String nodeId, ChannelPipeline pipeline) {
        if (HANDLERS.isEmpty() || nodeId == null) {
            return;
        }
        Supplier<? extends ChannelHandler> handler = HANDLERS.get(nodeId);
        if (handler != null) {
            pipeline.addFirst(NAME, handler.get());
        }
    }
}
