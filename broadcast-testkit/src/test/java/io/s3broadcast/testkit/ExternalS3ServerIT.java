package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** The external backend, pointed at a private S3Proxy standing in for AWS. */
class ExternalS3ServerIT {

  private final Map<String, String> saved = new HashMap<>();

  private void set(String property, String value) {
    saved.putIfAbsent(property, System.getProperty(property));
    System.setProperty(property, value);
  }

  @AfterEach
  void restoreProperties() {
    saved.forEach((k, v) -> {
      if (v == null) {
        System.clearProperty(k);
      } else {
        System.setProperty(k, v);
      }
    });
  }

  @Test
  void sharesTheConfiguredBucketUnderAUniquePrefixAndCleansOnlyThePrefix() {
    try (S3ProxyServer proxy = S3ProxyServer.start()) {
      proxy.createBucket("shared-bucket");
      var credentials = proxy.credentialsProvider().resolveCredentials();
      set("s3broadcast.test.bucket", "shared-bucket");
      set("s3broadcast.test.endpoint", proxy.endpoint().toString());
      set("s3broadcast.test.region", "eu-west-1");
      set("aws.accessKeyId", credentials.accessKeyId());
      set("aws.secretAccessKey", credentials.secretAccessKey());
      try (ExternalS3Server external = ExternalS3Server.fromEnvironment()) {
        assertThat(external.pathStyle()).isTrue();
        assertThat(external.region().id()).isEqualTo("eu-west-1");
        assertThat(external.supports(S3Feature.CREATE_BUCKET)).isFalse();
        assertThatThrownBy(() -> external.createBucket("x")).isInstanceOf(UnsupportedOperationException.class);
        try (var client = proxy.newClient()) {
          client.putObject(b -> b.bucket("shared-bucket").key("keep-me"), RequestBody.fromString("x"));
        }

        S3Fixture s3 = S3Fixture.create(external, "ExternalTest");
        assertThat(s3.bucket()).isEqualTo("shared-bucket");
        assertThat(s3.prefix()).startsWith("s3broadcast-test/externaltest-").endsWith("/");
        StoredObject object = s3.putRandom(s3.key("k"), S3Fixture.MULTIPART_THRESHOLD + 5, 1);
        assertThat(object.key()).startsWith(s3.prefix());
        assertThat(s3.sha256(object.key())).isEqualTo(object.sha256());
        s3.close();

        try (var client = proxy.newClient()) {
          assertThat(client.listObjectsV2(b -> b.bucket("shared-bucket")).contents())
              .extracting(o -> o.key())
              .containsExactly("keep-me");
        }
      }
    }
  }

  @Test
  void missingBucketIsNamedInTheError() {
    set("s3broadcast.test.bucket", " ");
    Assumptions.assumeTrue(System.getenv("S3BROADCAST_TEST_BUCKET") == null, "S3BROADCAST_TEST_BUCKET is set");
    assertThatThrownBy(ExternalS3Server::fromEnvironment)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("S3BROADCAST_TEST_BUCKET");
  }

  @Test
  void unknownBackendNameListsTheKnownOnes() {
    assertThatThrownBy(() -> S3Backend.of("minio"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3proxy, localstack, testcontainers, external");
    assertThat(S3Backend.of(" LocalStack ")).isEqualTo(S3Backend.LOCALSTACK);
  }
}
