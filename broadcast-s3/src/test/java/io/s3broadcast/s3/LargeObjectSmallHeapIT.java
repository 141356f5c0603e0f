package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A 2 GiB object fetched by a JVM limited to a 128 MiB heap: memory must not grow with the object. */
@RealS3
class LargeObjectSmallHeapIT {

    static final long SIZE = 2L << 30;

    @TempDir
    Path dir;

    @Test
    void twoGibibytesWithA128MibHeap(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("two-gib.bin"), SIZE, 2048);
        Path dest = dir.resolve("two-gib.bin");
        var creds = s3.credentialsProvider().resolveCredentials();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"),
                SmallHeapFetchMain.class.getName(),
                s3.endpoint().toString(), s3.bucket(), object.key(), dest.toString(), s3.region().id(),
                creds.accessKeyId(), creds.secretAccessKey()));
        Path log = dir.resolve("child.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = p.waitFor(10, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(exited).as("child finished in time; output:%n%s", output).isTrue();
        assertThat(p.exitValue()).as("child exit code; output:%n%s", output).isZero();
        assertThat(output).contains("size=" + SIZE);
        assertThat(Files.size(dest)).isEqualTo(SIZE);
        assertThat(BroadcastApiIT.sha256(dest)).isEqualTo(object.sha256());
    }
}
