package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostLocalStackServerIT {

  /** A fake "python" that ignores its arguments and runs {@code body}. */
  private static Path fakePython(Path dir, String body) throws Exception {
    Path script = dir.resolve("python");
    Files.writeString(script, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  @Test
  void processThatDiesEarlyFailsFastWithItsOutput(@TempDir Path dir) throws Exception {
    Path python = fakePython(dir, "echo 'ModuleNotFoundError: No module named localstack'; exit 3");
    long started = System.nanoTime();
    assertThatThrownBy(() -> HostLocalStackServer.start(python, dir, Duration.ofSeconds(60)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exited with code 3")
        .hasMessageContaining("No module named localstack");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void portClashIsRetriedOnAnotherPortThenReported(@TempDir Path dir) throws Exception {
    Path python = fakePython(dir, "echo 'OSError: [Errno 98] Address already in use'; exit 1");
    assertThatThrownBy(() -> HostLocalStackServer.start(python, dir, Duration.ofSeconds(60)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already in use");
    try (var logs = Files.list(dir)) {
      assertThat(logs.filter(p -> p.getFileName().toString().startsWith("localstack-"))).hasSize(3);
    }
  }

  @Test
  void processThatNeverGetsHealthyTimesOut(@TempDir Path dir) throws Exception {
    Path python = fakePython(dir, "echo starting; exec sleep 600");
    assertThatThrownBy(() -> HostLocalStackServer.start(python, dir, Duration.ofSeconds(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not healthy within PT2S")
        .hasMessageContaining("starting");
  }

  /** A second, private LocalStack: only in the localstack execution, where Python 3.13 is required. */
  @Test
  void realLocalStackStartsServesAndIsKilledOnClose() {
    assumeTrue(
        S3Backend.selected() == S3Backend.LOCALSTACK,
        "real LocalStack is started only when -Ds3broadcast.test.backend=localstack");
    ProcessHandle process;
    try (HostLocalStackServer server = HostLocalStackServer.start()) {
      process = server.process();
      assertThat(process.isAlive()).isTrue();
      S3Fixture s3 = S3Fixture.create(server, "private-localstack");
      StoredObject object = s3.putRandom(s3.key("k"), 100_000, 8);
      assertThat(s3.getRange(object.key(), 65_530, 65_545)).isEqualTo(SeededData.bytes(8, 65_530, 16));
      s3.close();
    }
    assertThat(process.isAlive()).isFalse();
    assertThat(process.descendants()).isEmpty();
  }
}
