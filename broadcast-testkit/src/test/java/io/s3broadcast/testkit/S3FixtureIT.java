package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The fixture against whichever backend {@code -Ds3broadcast.test.backend} selects. */
@RealS3
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3FixtureIT {

  private static String previousBucket;

  private final S3Fixture fromConstructor;
  private S3Fixture fromField;

  S3FixtureIT(S3Fixture fixture) {
    this.fromConstructor = fixture;
  }

  @Test
  @Order(1)
  void constructorFieldAndParameterGetTheSameFreshFixture(S3Fixture s3, S3Server server) {
    assertThat(s3).isSameAs(fromConstructor).isSameAs(fromField);
    assertThat(server).isSameAs(S3Backend.selected().shared());
    assertThat(s3.server().name()).isEqualTo(S3Backend.selected().id());
    assertThat(s3.client().listObjectsV2(b -> b.bucket(s3.bucket()).prefix(s3.prefix())).contents())
        .isEmpty();
    s3.putBytes(s3.key("left-behind"), new byte[] {1, 2, 3});
    previousBucket = s3.bucket() + "/" + s3.prefix();
  }

  @Test
  @Order(2)
  void theLastTestsObjectsAreGone(S3Fixture s3) {
    assertThat(previousBucket).isNotNull();
    assertThat(s3.bucket() + "/" + s3.prefix()).isNotEqualTo(previousBucket);
    int slash = previousBucket.indexOf('/');
    String bucket = previousBucket.substring(0, slash);
    String prefix = previousBucket.substring(slash + 1);
    if (s3.supports(S3Feature.CREATE_BUCKET)) {
      assertThatThrownBy(() -> s3.client().headBucket(b -> b.bucket(bucket)))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    } else {
      assertThat(s3.client().listObjectsV2(b -> b.bucket(bucket).prefix(prefix)).contents()).isEmpty();
    }
  }

  @Test
  void rangedGetsReturnTheRightBytes() {
    S3Fixture s3 = fromField;
    long size = 3 * 1024 * 1024 + 17;
    StoredObject object = s3.putRandom(s3.key("ranged"), size, 99);
    assertThat(object.size()).isEqualTo(size);
    long[][] ranges = {{0, 0}, {0, 99}, {7, 8}, {1_000_003, 1_065_538}, {size - 1, size - 1}, {size - 10, size - 1}};
    for (long[] r : ranges) {
      assertThat(s3.getRange(object.key(), r[0], r[1]))
          .as("bytes=%d-%d", r[0], r[1])
          .isEqualTo(SeededData.bytes(99, r[0], (int) (r[1] - r[0] + 1)));
    }
    // Suffix range and a range running past the end are clipped like AWS does.
    byte[] suffix =
        s3.client()
            .getObjectAsBytes(b -> b.bucket(s3.bucket()).key(object.key()).range("bytes=-5"))
            .asByteArray();
    assertThat(suffix).isEqualTo(SeededData.bytes(99, size - 5, 5));
    byte[] pastEnd = s3.getRange(object.key(), size - 3, size + 100);
    assertThat(pastEnd).isEqualTo(SeededData.bytes(99, size - 3, 3));
  }

  @Test
  void ifMatchMismatchAnswers412(S3Fixture s3) {
    s3.assumeSupports(S3Feature.IF_MATCH_ON_GET);
    StoredObject first = s3.putBytes(s3.key("versioned"), "first".getBytes(StandardCharsets.UTF_8));
    StoredObject second = s3.overwrite(first.key(), "second!".getBytes(StandardCharsets.UTF_8));
    assertThat(second.eTag()).isNotEqualTo(first.eTag());

    byte[] current =
        s3.client()
            .getObjectAsBytes(b -> b.bucket(s3.bucket()).key(first.key()).ifMatch(second.eTag()))
            .asByteArray();
    assertThat(new String(current, StandardCharsets.UTF_8)).isEqualTo("second!");

    assertThatThrownBy(
            () ->
                s3.client()
                    .getObjectAsBytes(
                        b -> b.bucket(s3.bucket()).key(first.key()).range("bytes=0-2").ifMatch(first.eTag())))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
  }

  @Test
  void multipartSeededUploadRoundTrips(S3Fixture s3) {
    long size = 64L * 1024 * 1024 + 12_345; // five parts, the last one short
    StoredObject object = s3.putRandom(s3.key("big/object.bin"), size, 2024);
    assertThat(object.sha256()).isEqualTo(SeededData.sha256Hex(2024, size));
    assertThat(object.eTag()).endsWith("-5\"");
    assertThat(s3.client().headObject(b -> b.bucket(s3.bucket()).key(object.key())).contentLength())
        .isEqualTo(size);
    assertThat(s3.sha256(object.key())).isEqualTo(object.sha256());
    assertThat(s3.getRange(object.key(), S3Fixture.PART_SIZE - 4, S3Fixture.PART_SIZE + 3))
        .isEqualTo(SeededData.bytes(2024, S3Fixture.PART_SIZE - 4, 8));
  }

  @Test
  void overwriteWithSeededDataChangesContentAndETag(S3Fixture s3) {
    StoredObject before = s3.putRandom(s3.key("o"), 1000, 1);
    StoredObject after = s3.overwriteRandom(before.key(), 1000, 2);
    assertThat(after.eTag()).isNotEqualTo(before.eTag());
    assertThat(s3.getBytes(before.key())).isEqualTo(SeededData.bytes(2, 0, 1000));
    assertThatThrownBy(() -> s3.overwrite(s3.key("missing"), new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nothing to overwrite");
  }

  @Test
  void asyncClientUploadsASeededBodyAndDownloadsIt(S3Fixture s3) throws Exception {
    long size = 5L * 1024 * 1024 + 3;
    String key = s3.key("async");
    s3.asyncClient()
        .putObject(b -> b.bucket(s3.bucket()).key(key).contentLength(size), SeededData.asyncBody(3, 0, size))
        .get();
    byte[] back =
        s3.asyncClient()
            .getObject(b -> b.bucket(s3.bucket()).key(key), AsyncResponseTransformer.toBytes())
            .get()
            .asByteArray();
    assertThat(back).isEqualTo(SeededData.bytes(3, 0, (int) size));
  }

  @Test
  void emptyObject(S3Fixture s3) {
    StoredObject empty = s3.putRandom(s3.key("empty"), 0, 1);
    assertThat(s3.getBytes(empty.key())).isEmpty();
    assertThat(empty.sha256())
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }
}
