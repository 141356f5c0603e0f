package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

    /** What a listener heard of a fetchAll: every progress snapshot, and how many objects completed. */
    static final class Heard implements FetchListener {
        final List<FetchProgress> initiated = new CopyOnWriteArrayList<>();
        final List<FetchProgress> transferred = new CopyOnWriteArrayList<>();
        final CountDownLatch completed;

        Heard(int objects) {
            completed = new CountDownLatch(objects);
        }

        @Override
        public void fetchInitiated(FetchProgress p) {
            initiated.add(p);
        }

        @Override
        public void bytesTransferred(FetchProgress p) {
            transferred.add(p);
        }

        @Override
        public void fetchComplete(CompletedFetch result) {
            completed.countDown();
        }

        /** One total over all objects, reached exactly once, never going back. */
        void sawOneTotal(long total) throws InterruptedException {
            assertThat(initiated).hasSize(1);
            assertThat(initiated.get(0).totalBytes()).isEqualTo(total);
            assertThat(transferred).isNotEmpty().allMatch(p -> p.totalBytes() == total);
            for (int i = 1; i < transferred.size(); i++) {
                assertThat(transferred.get(i).transferredBytes()).isGreaterThan(transferred.get(i - 1).transferredBytes());
            }
            assertThat(transferred).filteredOn(p -> p.transferredBytes() == total).hasSize(1);
            assertThat(transferred.get(transferred.size() - 1).transferredBytes()).isEqualTo(total);
            assertThat(transferred.get(transferred.size() - 1).ratioTransferred()).isEqualTo(1.0);
            assertThat(completed.await(30, TimeUnit.SECONDS)).as("fetchComplete once per object").isTrue();
        }
    }

    @Test
    void oneProgressTotalOverAllObjects(S3Fixture s3) throws Exception {
        StoredObject a = s3.putRandom(s3.key("ds/a.bin"), 2_500_000, 5);
        StoredObject b = s3.putRandom(s3.key("ds/b/c.bin"), 700_000, 6);
        StoredObject c = s3.putRandom(s3.key("ds/d.bin"), 12_345, 7);
        long total = a.size() + b.size() + c.size();
        Heard first = new Heard(3);
        Heard second = new Heard(3);
        try (Broadcast broadcast = s3.broadcastBuilder().pieceSize(256 << 10).addListener(first).build()) {
            FetchAllHandle handle = broadcast.fetchAll(s3.bucket(), s3.key("ds/"), dir);
            assertThat(handle.join()).hasSize(3);
            first.sawOneTotal(total);
            assertThat(handle.progress().totalBytes()).isEqualTo(total);
            assertThat(handle.progress().transferredBytes()).isEqualTo(total);
            assertThat(handle.progress().totalPieces()).isEqualTo(10 + 3 + 1);
            assertThat(handle.progress().completedPieces()).isEqualTo(10 + 3 + 1);
            assertThat(handle.progress().bytesFromS3()).isGreaterThanOrEqualTo(total);
        }
        try (Broadcast broadcast = s3.broadcastBuilder().pieceSize(256 << 10).addListener(second).build()) {
            FetchAllHandle handle = broadcast.fetchAll(s3.bucket(), s3.key("ds/"), dir);
            assertThat(handle.join()).allMatch(CompletedFetch::unchanged);
            second.sawOneTotal(total); // unchanged objects count whole
            assertThat(handle.progress().bytesFromS3()).isZero();
        }
    }

    @Test
    void anEmptyPrefixGivesNoResults(S3Fixture s3) {
        try (Broadcast broadcast = s3.broadcastBuilder().build()) {
            assertThat(broadcast.fetchAll(s3.bucket(), s3.key("nothing/"), dir).join()).isEmpty();
        }
    }
}
