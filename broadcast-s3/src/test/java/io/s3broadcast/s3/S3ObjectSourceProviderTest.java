package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import io.s3broadcast.spi.SourceConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

class S3ObjectSourceProviderTest {

    static SourceConfig config(S3AsyncClient client, String httpClient) {
        return new SourceConfig(client, URI.create("http://127.0.0.1:1"), Region.US_EAST_1,
                AnonymousCredentialsProvider.create(), true, httpClient, 8, 8 << 20, 3, Duration.ofMillis(100),
                Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(10));
    }

    @Test
    void isFoundByServiceLoader() {
        assertThat(ServiceLoader.load(ObjectSourceProvider.class).stream().map(ServiceLoader.Provider::type))
                .contains(S3ObjectSourceProvider.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "crt", "CRT", "auto"})
    void buildsAClientOfEachKind(String httpClient) {
        try (ObjectSource source = new S3ObjectSourceProvider().create(config(null, httpClient))) {
            assertThat(source).isInstanceOf(S3ObjectSource.class);
        }
    }

    @Test
    void rejectsAnUnknownHttpClient() {
        assertThatThrownBy(() -> new S3ObjectSourceProvider().create(config(null, "apache")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use auto, netty or crt");
    }

    @Test
    void usesTheCallersClientAndLeavesItOpen() {
        FakeS3Client client = new FakeS3Client(new byte[0], "\"e\"", 1);
        ObjectSource source = new S3ObjectSourceProvider().create(config(client, "netty"));
        source.close();
        assertThat(client.closed).hasValue(0);
        assertThat(source.head("b", "k")).isCompletedExceptionally();
        assertThatThrownBy(() -> source.head("b", "k").join()).cause().isInstanceOf(BroadcastException.class)
                .hasMessageContaining("closed");
    }
}
