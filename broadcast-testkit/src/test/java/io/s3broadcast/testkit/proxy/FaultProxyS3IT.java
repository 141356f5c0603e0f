package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.SeededData;
import io.s3broadcast.testkit.StoredObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The AWS SDK v2 S3 client through the proxy to the selected real S3 backend. */
@RealS3
@Timeout(300)
class FaultProxyS3IT {
  private static final long SEED = 20240607L;
  private static final int MIB = 1 << 20;

  private FaultProxy proxy;

  private FaultProxy proxy(S3Fixture s3) throws IOException {
    URI endpoint = s3.endpoint();
    assumeThat(endpoint.getScheme()).as("the proxy speaks plain HTTP only").isEqualTo("http");
    InetAddress host = InetAddress.getByName(endpoint.getHost());
    assumeThat(host.isLoopbackAddress()).as("backend on loopback").isTrue();
    proxy = s3.closeAfterTest(FaultProxy.start(new InetSocketAddress(host, endpoint.getPort())));
    return proxy;
  }

  /** A sync client whose every request goes through the proxy. */
  private S3Client client(S3Fixture s3, Consumer<ClientOverrideConfiguration.Builder> settings) {
    return s3.closeAfterTest(
        s3.server().clientBuilder().endpointOverride(proxy.endpoint()).overrideConfiguration(settings).build());
  }

  private S3Client noRetries(S3Fixture s3) {
    return client(s3, o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
  }

  private static byte[] get(S3Client client, StoredObject o) {
    return client.getObjectAsBytes(b -> b.bucket(o.bucket()).key(o.key())).asByteArray();
  }

  @Test
  void slowDownReachesTheSdkAsAThrottlingErrorAndIsRetried(S3Fixture s3) throws Exception {
    StoredObject o = s3.putRandom(s3.key("slow"), MIB, SEED);
    proxy(s3);
    proxy.add(Rule.forGets().inject(Fault.slowDown()));
    assertThatThrownBy(() -> get(noRetries(s3), o))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(503);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SlowDown");
              assertThat(e.isThrottlingException()).isTrue();
            });

    Rule twice = proxy.add(Rule.forGets().times(2).inject(Fault.slowDown()));
    assertThat(get(client(s3, o2 -> {}), o)).isEqualTo(SeededData.bytes(SEED, 0, MIB));
    assertThat(twice.injected()).isEqualTo(2);
    assertThat(proxy.stats().faults(FaultKind.STATUS)).isEqualTo(3);
  }

  @Test
  void resetMidBodyIsAClientErrorAndIsRetried(S3Fixture s3) throws Exception {
    StoredObject o = s3.putRandom(s3.key("reset"), 4L * MIB, SEED);
    proxy(s3);
    proxy.add(Rule.forGets().inject(Fault.resetAfter(MIB)));
    assertThatThrownBy(() -> get(noRetries(s3), o)).isInstanceOf(SdkClientException.class);

    Rule once = proxy.add(Rule.forGets().inject(Fault.resetAfter(MIB)));
    assertThat(get(client(s3, c -> {}), o)).isEqualTo(SeededData.bytes(SEED, 0, 4 * MIB));
    assertThat(once.injected()).isEqualTo(1);
    assertThat(proxy.stats().faults(FaultKind.RESET)).isEqualTo(2);
  }

  @Test
  void truncatedStreamFailsTheReader(S3Fixture s3) throws Exception {
    StoredObject o = s3.putRandom(s3.key("truncated"), 4L * MIB, SEED);
    proxy(s3);
    proxy.add(Rule.forGets().inject(Fault.truncateAfter(MIB)));
    try (ResponseInputStream<GetObjectResponse> in =
        noRetries(s3).getObject(b -> b.bucket(o.bucket()).key(o.key()))) {
      assertThat(in.response().contentLength()).isEqualTo(4L * MIB);
      assertThatThrownBy(in::readAllBytes).isInstanceOfAny(IOException.class, SdkClientException.class);
    }
    assertThat(proxy.stats().faults(FaultKind.TRUNCATE)).isEqualTo(1);
  }

  @Test
  void stallIsEndedByTheAttemptTimeoutAndRetried(S3Fixture s3) throws Exception {
    StoredObject o = s3.putRandom(s3.key("stall"), 2L * MIB, SEED);
    proxy(s3);
    Rule stall = proxy.add(Rule.forGets().inject(Fault.stallAfter(256 * 1024)));
    S3Client client = client(s3, c -> c.apiCallAttemptTimeout(Duration.ofSeconds(2)));
    assertThat(get(client, o)).isEqualTo(SeededData.bytes(SEED, 0, 2 * MIB));
    assertThat(stall.injected()).isEqualTo(1);
    assertThat(proxy.stats().requests()).isEqualTo(2);
  }

  @Test
  void rangeRulesHitOnlyTheirRange(S3Fixture s3) throws Exception {
    StoredObject o = s3.putRandom(s3.key("ranges"), 3L * MIB, SEED);
    proxy(s3);
    Rule second = proxy.add(Rule.forGets().range("bytes=1048576-2097151").always().inject(Fault.internalError()));
    S3Client client = noRetries(s3);
    byte[] first =
        client.getObjectAsBytes(b -> b.bucket(o.bucket()).key(o.key()).range("bytes=0-1048575")).asByteArray();
    assertThat(first).isEqualTo(SeededData.bytes(SEED, 0, MIB));
    assertThatThrownBy(
            () -> client.getObjectAsBytes(b -> b.bucket(o.bucket()).key(o.key()).range("bytes=1048576-2097151")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(500));
    assertThat(second.injected()).isEqualTo(1);
  }

  @Test
  void faultedPutIsRetriedWithItsBody(S3Fixture s3) throws Exception {
    proxy(s3);
    // The SDK sends PutObject with "Expect: 100-continue": the proxy answers without reading the
    // body and closes the connection.
    Rule rule =
        proxy.add(
            Rule.forPuts()
                .where(head -> head.header("Expect").filter("100-continue"::equalsIgnoreCase).isPresent())
                .inject(Fault.internalError()));
    S3Client client = client(s3, c -> {});
    byte[] data = SeededData.bytes(SEED, 0, MIB);
    String key = s3.key("put");
    client.putObject(b -> b.bucket(s3.bucket()).key(key), RequestBody.fromBytes(data));
    assertThat(rule.injected()).isEqualTo(1);
    assertThat(s3.getBytes(key)).isEqualTo(data);
  }
}
