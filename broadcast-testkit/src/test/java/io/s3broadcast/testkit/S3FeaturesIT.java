package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** What a backend declares in {@link S3Server#features()} is what it does, both ways. */
@RealS3
class S3FeaturesIT {

  @Test
  void ifMatchOnGet(S3Fixture s3) {
    StoredObject object = s3.putBytes(s3.key("a"), new byte[] {1, 2, 3});
    boolean rejected;
    try {
      s3.client().getObjectAsBytes(b -> b.bucket(s3.bucket()).key(object.key()).ifMatch("\"0123\""));
      rejected = false;
    } catch (S3Exception e) {
      assertThat(e.statusCode()).isEqualTo(412);
      rejected = true;
    }
    assertThat(rejected).isEqualTo(s3.supports(S3Feature.IF_MATCH_ON_GET));
  }

  @Test
  void unknownCredentials(S3Fixture s3) {
    StoredObject object = s3.putBytes(s3.key("guarded"), new byte[] {1});
    S3Server server = s3.server();
    boolean refused;
    try (var stranger =
        software.amazon.awssdk.services.s3.S3Client.builder()
            .endpointOverride(server.endpoint())
            .region(server.region())
            .forcePathStyle(server.pathStyle())
            .credentialsProvider(
                software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                    software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("stranger", "wrong-secret")))
            .build()) {
      stranger.getObjectAsBytes(b -> b.bucket(s3.bucket()).key(object.key()));
      refused = false;
    } catch (S3Exception e) {
      assertThat(e.statusCode()).isEqualTo(403);
      refused = true;
    }
    assertThat(refused).isEqualTo(s3.supports(S3Feature.REJECTS_UNKNOWN_CREDENTIALS));
  }

  @Test
  void partNumberGet(S3Fixture s3) throws Exception {
    StoredObject object = s3.putRandom(s3.key("parts"), 2 * S3Fixture.PART_SIZE + 10, 4);
    if (s3.supports(S3Feature.PART_NUMBER_GET)) {
      try (var in = s3.client().getObject(b -> b.bucket(s3.bucket()).key(object.key()).partNumber(2))) {
        GetObjectResponse response = in.response();
        assertThat(response.partsCount()).isEqualTo(3);
        assertThat(response.contentLength()).isEqualTo(S3Fixture.PART_SIZE);
        assertThat(in.readNBytes(4)).isEqualTo(SeededData.bytes(4, S3Fixture.PART_SIZE, 4));
      }
    } else {
      assertThatThrownBy(
              () -> s3.client().getObject(b -> b.bucket(s3.bucket()).key(object.key()).partNumber(2)).close())
          .isInstanceOf(S3Exception.class);
    }
  }

  @Test
  void checksumHeadersOnGet(S3Fixture s3) {
    StoredObject small = s3.putBytes(s3.key("c"), new byte[] {4, 5, 6});
    StoredObject multipart = s3.putRandom(s3.key("m"), S3Fixture.PART_SIZE + 1, 6);
    HeadObjectResponse smallHead =
        s3.client().headObject(b -> b.bucket(s3.bucket()).key(small.key()).checksumMode(ChecksumMode.ENABLED));
    HeadObjectResponse multipartHead =
        s3.client()
            .headObject(b -> b.bucket(s3.bucket()).key(multipart.key()).checksumMode(ChecksumMode.ENABLED));
    if (s3.supports(S3Feature.GET_CHECKSUMS)) {
      assertThat(smallHead.checksumCRC32()).isNotNull();
      assertThat(smallHead.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
      assertThat(multipartHead.checksumCRC32()).endsWith("-2");
      assertThat(multipartHead.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
      try (var in =
          s3.client()
              .getObject(b -> b.bucket(s3.bucket()).key(small.key()).checksumMode(ChecksumMode.ENABLED))) {
        assertThat(in.response().checksumCRC32()).isEqualTo(smallHead.checksumCRC32());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    } else {
      assertThat(smallHead.checksumCRC32()).isNull();
      assertThat(multipartHead.checksumCRC32()).isNull();
    }
  }
}
