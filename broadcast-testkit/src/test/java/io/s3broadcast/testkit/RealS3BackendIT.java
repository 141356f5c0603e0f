package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@code @RealS3(backend = ...)} picks the backend of a class whatever {@code -Ds3broadcast.test.backend} says. */
@RealS3(backend = "s3proxy")
class RealS3BackendIT {

  @Test
  void theAnnotationWinsOverTheProperty(S3Fixture s3, S3Server server) {
    assertThat(server.name()).isEqualTo("s3proxy");
    assertThat(s3.server()).isSameAs(S3Backend.S3PROXY.shared());
  }

  @Nested
  class NestedClasses {
    @Test
    void inheritTheEnclosingClasssBackend(S3Fixture s3) {
      assertThat(s3.server().name()).isEqualTo("s3proxy");
    }
  }
}
