package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;

/** The node command a fresh JVM of {@code single --fresh-jvm} runs: ours with the flat tree, or the Transfer Manager. */
class NodeJvmMethodTest {

    private static final Endpoint ENDPOINT = Endpoint.external(URI.create("http://127.0.0.1:9000"), Region.US_EAST_1, true);

    private static NodeJvmMethod method(NodeJvmMethod.Kind kind, Tuning tuning) {
        return new NodeJvmMethod(kind, ENDPOINT, tuning, List.of(), List.of(), null, Duration.ofMinutes(1));
    }

    @Test
    void oursFetchesWithTheFlatTreeAndTheTuningGiven() {
        NodeJvmMethod ours = method(NodeJvmMethod.Kind.OURS, new Tuning(8, null, null, "crt", null));
        assertThat(ours.name()).isEqualTo(BroadcastMethod.NAME);
        assertThat(ours.nodeArgs("b", "k", Path.of("/d"))).containsSubsequence("--method", "ours")
                .containsSubsequence("--strategy", "flat").containsSubsequence("--connections", "8")
                .containsSubsequence("--http-client", "crt").doesNotContain("--range-size")
                .containsSubsequence("--endpoint", "http://127.0.0.1:9000", "--path-style", "true");
    }

    @Test
    void theTransferManagerGetsTheInProcessMethodsPartSizeAndConnections() {
        NodeJvmMethod tm = method(NodeJvmMethod.Kind.TRANSFER_MANAGER, new Tuning(16, null, null, "crt", null));
        assertThat(tm.name()).isEqualTo(TransferManagerMethod.NAME);
        List<String> args = tm.nodeArgs("b", "k", Path.of("/d"));
        assertThat(args).containsSubsequence("--method", "transfer-manager")
                .containsSubsequence("--connections", "16")
                .containsSubsequence("--range-size", String.valueOf(TransferManagerMethod.DEFAULT_PART_SIZE))
                .doesNotContain("--strategy", "--http-client");
        assertThat(tm.settings()).containsEntry("checksumValidation", false);
        assertThat(tm.syncsToDisk()).isTrue();
    }
}
