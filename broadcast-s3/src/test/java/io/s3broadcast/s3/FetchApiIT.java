package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** The request and result API against a real S3 server: skipping unchanged objects, join(), the one-call forms. */
@RealS3
class FetchApiIT {

    @TempDir
    Path dir;

    @Test
    void aSecondFetchOfAnUnchangedObjectReadsNothingFromS3(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("model.bin"), 3_000_000, 1);
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).build()) {
            CompletedFetch first = b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(first.bytesFromS3()).isGreaterThanOrEqualTo(object.size());
            FileTime written = Files.getLastModifiedTime(first.path());

            CompletedFetch second = b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(first.unchanged()).isFalse();
            assertThat(second.unchanged()).isTrue();
            assertThat(second.bytesFromS3()).isZero();
            assertThat(second.bytesFromPeers()).isZero();
            assertThat(second.path()).isEqualTo(first.path());
            assertThat(second.eTag()).isEqualTo(object.eTag());
            assertThat(Files.getLastModifiedTime(second.path())).isEqualTo(written);
            assertThat(TestCluster.sha256(second.path())).isEqualTo(object.sha256());

            CompletedFetch forced = b.fetch(r -> r.bucket(object.bucket()).key(object.key()).force(true)).join();
            assertThat(forced.bytesFromS3()).isGreaterThanOrEqualTo(object.size());
        }
    }

    @Test
    void closingOneBroadcastOnCrtLeavesAnotherFetching(S3Fixture s3) throws Exception {
        // Closing a CRT client built here drops CRT's static event loops, resolver and bootstrap; the other
        // Broadcast's client still holds them (reference counted), and a third one made after builds them again.
        StoredObject object = s3.putRandom(s3.key("shared.bin"), 3_000_000, 3);
        try (Broadcast kept = s3.broadcastBuilder().httpClient("crt").destinationDirectory(dir.resolve("a")).build()) {
            try (Broadcast closed = s3.broadcastBuilder().httpClient("crt").destinationDirectory(dir.resolve("b"))
                    .build()) {
                closed.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            }
            CompletedFetch after = kept.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(TestCluster.sha256(after.path())).isEqualTo(object.sha256());
            try (Broadcast third = s3.broadcastBuilder().httpClient("crt").destinationDirectory(dir.resolve("c"))
                    .build()) {
                CompletedFetch again = third.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
                assertThat(TestCluster.sha256(again.path())).isEqualTo(object.sha256());
            }
        }
    }

    @Test
    void theResultCarriesTheObjectsMetadata(S3Fixture s3) {
        String key = s3.key("labelled.json");
        s3.client().putObject(p -> p.bucket(s3.bucket()).key(key).contentType("application/json")
                .metadata(Map.of("dataset", "train", "shard", "7")), RequestBody.fromString("{\"x\":1}"));
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).build()) {
            CompletedFetch done = b.fetch(r -> r.bucket(s3.bucket()).key(key)).join();
            assertThat(done.contentType()).contains("application/json");
            assertThat(done.userMetadata()).containsEntry("dataset", "train").containsEntry("shard", "7");
            assertThat(done.lastModified()).isPresent();
            assertThat(done.lastModified().get()).isBefore(Instant.now().plusSeconds(60));
            assertThat(done.checksumVerified()).isEqualTo(done.checksumAlgorithm().isPresent());
            assertThat(done.toBuilder().build()).isEqualTo(done);
        }
    }

    @Test
    void aChangedObjectOrATouchedFileIsFetchedAgain(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("data.bin"), 100_000, 1);
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).build()) {
            CompletedFetch first = b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            StoredObject replaced = s3.overwriteRandom(object.key(), 100_000, 2);
            CompletedFetch afterOverwrite = b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(afterOverwrite.bytesFromS3()).isGreaterThanOrEqualTo(object.size());
            assertThat(afterOverwrite.eTag()).isEqualTo(replaced.eTag());
            assertThat(TestCluster.sha256(first.path())).isEqualTo(replaced.sha256());

            Files.write(first.path(), new byte[100_000]); // same size, other bytes, a newer time
            Files.setLastModifiedTime(first.path(), FileTime.fromMillis(System.currentTimeMillis() + 5_000));
            CompletedFetch afterTouch = b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(afterTouch.bytesFromS3()).isGreaterThanOrEqualTo(object.size());
            assertThat(TestCluster.sha256(afterTouch.path())).isEqualTo(replaced.sha256());
        }
    }

    @Test
    void withMicrometerOnTheClassPathFetchesAreMetered(S3Fixture s3) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.addRegistry(registry);
        try {
            StoredObject object = s3.putRandom(s3.key("metered.bin"), 2_000_000, 6);
            try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).build()) {
                b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            }
            assertThat(registry.get("s3broadcast.fetch.bytes").tag("source", "s3").counter().count())
                    .isGreaterThanOrEqualTo(object.size());
            assertThat(registry.get("s3broadcast.fetch").tag("outcome", "fetched").timer().count()).isEqualTo(1);
            try (Broadcast off = s3.broadcastBuilder().destinationDirectory(dir).metrics(false).build()) {
                off.fetch(r -> r.bucket(object.bucket()).key(object.key()).force(true)).join();
            }
            assertThat(registry.get("s3broadcast.fetch").tag("outcome", "fetched").timer().count()).isEqualTo(1);
        } finally {
            Metrics.removeRegistry(registry);
        }
    }

    @Test
    void aCallerReturningFromJoinHasSeenTheListenersTold(S3Fixture s3) {
        StoredObject object = s3.putRandom(s3.key("told.bin"), 300_000, 9);
        List<String> told = new CopyOnWriteArrayList<>();
        FetchListener listener = new FetchListener() {
            @Override
            public void fetchComplete(CompletedFetch result) {
                told.add("complete " + result.key());
            }

            @Override
            public void fetchFailed(Throwable cause) {
                told.add("failed " + cause.getClass().getSimpleName());
            }
        };
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).addListener(listener).build()) {
            b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join();
            assertThat(told).containsExactly("complete " + object.key());
            assertThatThrownBy(() -> b.fetch(r -> r.bucket(s3.bucket()).key(s3.key("absent"))).join())
                    .isInstanceOf(CompletionException.class);
            assertThat(told).containsExactly("complete " + object.key(), "failed ObjectNotFound");
        }
    }

    @Test
    void joinThrowsACompletionExceptionWrappingTheBroadcastException(S3Fixture s3) {
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).build()) {
            assertThatThrownBy(() -> b.fetch(r -> r.bucket(s3.bucket()).key(s3.key("missing"))).join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                    .hasMessageContaining(s3.key("missing"));
        }
    }

    @Test
    void oneCallFetchToADestinationThrowsTheBroadcastExceptionItself(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("one-call.bin"), 10_000, 3);
        var creds = s3.credentialsProvider().resolveCredentials();
        String[][] props = {
            {"s3broadcast.endpoint", s3.endpoint().toString()},
            {"aws.accessKeyId", creds.accessKeyId()},
            {"aws.secretAccessKey", creds.secretAccessKey()},
        };
        for (String[] p : props) {
            System.setProperty(p[0], p[1]);
        }
        try {
            // No region anywhere: with an endpoint the library signs for us-east-1 (or the SDK's default chain).
            Path target = dir.resolve("sub/renamed.bin");
            CompletedFetch done = Broadcast.fetch(object.bucket(), object.key(), target);
            assertThat(done.path()).isEqualTo(target);
            assertThat(TestCluster.sha256(target)).isEqualTo(object.sha256());
            assertThatThrownBy(() -> Broadcast.fetch(object.bucket(), s3.key("missing"), dir.resolve("m")))
                    .isInstanceOf(BroadcastException.ObjectNotFound.class);
        } finally {
            for (String[] p : props) {
                System.clearProperty(p[0]);
            }
        }
    }

    @Test
    void settingsAreCheckedAtBuild(S3Fixture s3) {
        assertThatThrownBy(() -> s3.broadcastBuilder().registry("zk://127.0.0.1:2181/x").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry").hasMessageContaining("io.s3broadcast:broadcast-zookeeper");
        assertThatThrownBy(() -> s3.broadcastBuilder().registry("127.0.0.1:2181").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry").hasMessageContaining("static:");
        assertThatThrownBy(() -> s3.broadcastBuilder().pieceSize(100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pieceSize 100").hasMessageContaining("16KiB");
    }

    /**
     * The cluster strategy is made while the first fetch's HEAD is out; when it cannot be made (here: the peer port is
     * taken), that fetch and every later one fail with the reason, and nothing is left at the destination.
     */
    @Test
    void aClusterStrategyThatCannotBeMadeFailsEveryClusterFetchWithItsCause(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("no-cluster.bin"), 10_000, 4);
        try (Broadcast b = s3.broadcastBuilder().destinationDirectory(dir).strategy(Strategy.OVERLAP)
                .registry("static:127.0.0.1:7070").secret("fetch-api-it-secret-0123456789")
                .clusterStrategy((config, client) -> {
                    throw new IllegalStateException("cannot listen for peers on port 7070: Address already in use");
                }).build()) {
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> b.fetch(r -> r.bucket(object.bucket()).key(object.key())).join())
                        .isInstanceOf(CompletionException.class)
                        .rootCause().hasMessageContaining("Address already in use");
            }
        }
        try (var left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }
}
