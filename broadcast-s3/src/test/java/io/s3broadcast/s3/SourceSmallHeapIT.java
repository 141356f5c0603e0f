package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 source alone fetches a 2 GiB object in a JVM limited to a 128 MiB heap, with each HTTP client:
 * bodies stream to disk, so memory does not grow with the object. (The public API's run of the same is
 * {@link LargeObjectSmallHeapIT}.)
 */
@RealS3
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SourceSmallHeapIT {

    static final long SIZE = 2L << 30;
    static final Pattern LINE = Pattern.compile("client=(\\w+) size=(\\d+) seconds=\\S+ peakHeapMiB=(\\d+) sha256=(\\w+)");

    @TempDir
    Path dir;

    @Test
    void twoGibibytesThroughEachClientWithA128MibHeap(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("two-gib-source.bin"), SIZE, 4096);
        var creds = s3.credentialsProvider().resolveCredentials();
        String output = ForkedJvm.run(dir, "128m", SmallHeapSourceMain.class, List.of(
                s3.endpoint().toString(), s3.bucket(), object.key(), dir.toString(), s3.region().id(),
                creds.accessKeyId(), creds.secretAccessKey(), "netty,crt"), Duration.ofMinutes(8));
        Matcher m = LINE.matcher(output);
        List<String> clients = new ArrayList<>();
        while (m.find()) {
            clients.add(m.group(1));
            assertThat(Long.parseLong(m.group(2))).isEqualTo(SIZE);
            assertThat(m.group(4)).as("SHA-256 through %s", m.group(1)).isEqualTo(object.sha256());
            assertThat(Integer.parseInt(m.group(3))).as("peak heap MiB through %s", m.group(1)).isLessThan(128);
        }
        assertThat(clients).as("output:%n%s", output).containsExactly("netty", "crt");
        System.out.print(output);
    }
}
