package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Transfer and cluster settings of one node, shared by {@code node}, {@code cluster} and {@code demo} (a picocli
 * mixin). Null means Broadcast's own default, which system properties and environment variables may set.
 */
final class NodeTuning {

    @Option(names = "--piece-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Bytes per piece, the unit of checksums and of peer exchange (default: Broadcast's: 1MiB, or computed for a cluster, docs/configuration.md).")
    Long pieceSize;

    @Option(names = "--work-size", paramLabel = "PIECES",
            description = "Pieces per work, the unit of stealing (default: Broadcast's).")
    Integer workSize;

    @Option(names = "--connections", paramLabel = "N",
            description = "Concurrent ranged GETs to S3 per node (default: Broadcast's, 16).")
    Integer connections;

    @Option(names = "--range-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Bytes per ranged GET (default: Broadcast's, 32MiB).")
    Long rangeSize;

    @Option(names = "--linger", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "How long a complete node keeps serving peers that are not done, e.g. 30s (default: Broadcast's).")
    Duration linger;

    @Option(names = "--http-client", paramLabel = "netty|crt", description = "SDK HTTP client (default: Broadcast's).")
    String httpClient;

    @Option(names = "--overlay-peers", paramLabel = "K",
            description = "Peers each node keeps; a group of at most K + 1 nodes is a full mesh (default: Broadcast's, 16).")
    Integer overlayPeers;

    @Option(names = "--no-expect-nodes", negatable = false,
            description = "Nodes do not tell Broadcast how many they are (no expectNodes, as with Broadcast's defaults):"
                    + " phase-1 shares by rendezvous hashing over the members each node sees, the default piece size."
                    + " The nodes still start together.")
    boolean noExpectNodes;

    /** Sets on {@code builder} what was given. */
    Broadcast.Builder applyTo(Broadcast.Builder builder) {
        if (pieceSize != null) {
            builder.pieceSize(Math.toIntExact(pieceSize));
        }
        if (workSize != null) {
            builder.workSize(workSize);
        }
        if (connections != null) {
            builder.connections(connections);
        }
        if (rangeSize != null) {
            builder.rangeSize(rangeSize);
        }
        if (linger != null) {
            builder.linger(linger);
        }
        if (httpClient != null) {
            builder.httpClient(httpClient);
        }
        if (overlayPeers != null) {
            builder.overlayPeers(overlayPeers);
        }
        return builder;
    }

    /** The settings as reported in JSON: each value, or {@code "default"}. */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pieceSize", orDefault(pieceSize));
        m.put("workSize", orDefault(workSize));
        m.put("connections", orDefault(connections));
        m.put("rangeSize", orDefault(rangeSize));
        m.put("linger", linger != null ? linger.toString() : "default");
        m.put("httpClient", orDefault(httpClient));
        m.put("overlayPeers", orDefault(overlayPeers));
        m.put("expectNodes", noExpectNodes ? "none" : "the fleet's size");
        return m;
    }

    private static Object orDefault(Object value) {
        return value != null ? value : "default";
    }
}
