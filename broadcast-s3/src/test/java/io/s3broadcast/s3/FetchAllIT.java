package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fetchAll: every object under a prefix, into a directory, keeping the paths below the prefix. */
@RealS3
class FetchAllIT {

    @TempDir
    Path dir;

    @Test
    void everyObjectUnderThePrefixLandsAtItsPathAndASecondRunReadsNothing(S3Fixture s3) {
        StoredObject a = s3.putRandom(s3.key("model/shard-0.bin"), 3_000_000, 1);
        StoredObject b = s3.putRandom(s3.key("model/shard-1.bin"), 1_500_000, 2);
        StoredObject c = s3.putRandom(s3.key("model/config/tokenizer.json"), 2_000, 3);
        s3.putBytes(s3.key("model/empty-dir/"), new byte[0]); // a directory marker
        s3.putRandom(s3.key("other/not-this.bin"), 100, 4);
        try (Broadcast broadcast = s3.broadcastBuilder().build()) {
            List<CompletedFetch> done = broadcast.fetchAll(s3.bucket(), s3.key("model/"), dir).join();
            assertThat(done).extracting(CompletedFetch::path).containsExactly(
                    dir.resolve("config/tokenizer.json"), dir.resolve("shard-0.bin"), dir.resolve("shard-1.bin"));
            for (StoredObject o : List.of(a, b, c)) {
                Path file = dir.resolve(o.key().substring(s3.key("model/").length()));
                assertThat(TestCluster.sha256(file)).as(o.key()).isEqualTo(o.sha256());
            }
            List<CompletedFetch> again = broadcast.fetchAll(s3.bucket(), s3.key("model/"), dir).join();
            assertThat(again).allMatch(CompletedFetch::unchanged);
            assertThat(again.stream().mapToLong(CompletedFetch::bytesFromS3).sum()).isZero();
        }
    }

    @Test
    void anEmptyPrefixGivesNoResults(S3Fixture s3) {
        try (Broadcast broadcast = s3.broadcastBuilder().build()) {
            assertThat(broadcast.fetchAll(s3.bucket(), s3.key("nothing/"), dir).join()).isEmpty();
        }
    }
}
