package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
        String output = ForkedJvm.run(dir, "128m", SmallHeapFetchMain.class, List.of(
                s3.endpoint().toString(), s3.bucket(), object.key(), dest.toString(), s3.region().id(),
                creds.accessKeyId(), creds.secretAccessKey()), Duration.ofMinutes(10));
        assertThat(output).contains("size=" + SIZE);
        assertThat(Files.size(dest)).isEqualTo(SIZE);
        assertThat(BroadcastApiIT.sha256(dest)).isEqualTo(object.sha256());
    }
}
