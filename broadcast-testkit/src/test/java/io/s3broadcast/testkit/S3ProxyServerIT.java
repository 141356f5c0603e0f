package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/** S3Proxy runs in every execution: it needs nothing but the JVM. */
class S3ProxyServerIT {

  @Test
  void startsQuicklyServesAndCleansUp() {
    long started = System.nanoTime();
    Path dataDir;
    S3Client client;
    try (S3ProxyServer server = S3ProxyServer.start()) {
      // Target < 2 s; measured 0.5-1 s cold on the 2-core dev machine. The bound only catches a hang: a loaded
      // 2-core CI running other JVMs can stretch a cold start well past the target.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
      assertThat(server.endpoint().getHost()).isEqualTo("127.0.0.1");
      dataDir = server.dataDir();
      S3Fixture s3 = S3Fixture.create(server, "standalone");
      StoredObject object = s3.putRandom(s3.key("k"), 1234, 5);
      assertThat(s3.getRange(object.key(), 10, 19)).isEqualTo(SeededData.bytes(5, 10, 10));
      s3.close();
      client = server.newClient();
    }
    assertThat(Files.exists(dataDir)).isFalse();
    try (client) {
      assertThatThrownBy(client::listBuckets).isInstanceOf(SdkClientException.class);
    }
  }
}
