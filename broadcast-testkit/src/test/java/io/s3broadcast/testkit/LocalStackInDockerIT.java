package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link TestcontainersLocalStackServer}: runs where Docker is; elsewhere it is reported as skipped with "no Docker engine: ...". */
class LocalStackInDockerIT {

  @Test
  void startsInDockerOrSkips() {
    try (S3Server server = S3Backend.TESTCONTAINERS.start()) {
      S3Fixture s3 = S3Fixture.create(server, "testcontainers");
      StoredObject object = s3.putRandom(s3.key("k"), 4096, 3);
      assertThat(s3.getRange(object.key(), 100, 199)).isEqualTo(SeededData.bytes(3, 100, 100));
      s3.close();
    }
  }
}
