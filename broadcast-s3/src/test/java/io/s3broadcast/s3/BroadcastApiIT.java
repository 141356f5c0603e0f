package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Feature;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** The public API end to end: {@link Broadcast} with the S3 source against a real S3 server. */
@RealS3
class BroadcastApiIT {

    @TempDir
    Path dir;

    private Broadcast.Builder broadcast(S3Fixture s3) {
        return Broadcast.builder()
                .endpoint(s3.endpoint())
                .region(s3.region())
                .credentialsProvider(s3.credentialsProvider())
                .destinationDirectory(dir);
    }

    @Test
    void fetchesALargeObjectByteExactWithProgress(S3Fixture s3) throws Exception {
        // Not a multiple of the 8 MiB range nor of the 1 MiB piece.
        long size = (64L << 20) + 12_345;
        StoredObject object = s3.putRandom(s3.key("data/large.bin"), size, 42);
        List<FetchProgress> progress = new CopyOnWriteArrayList<>();
        AtomicBoolean initiated = new AtomicBoolean();
        List<CompletedFetch> completed = new CopyOnWriteArrayList<>();
        FetchListener listener = new FetchListener() {
            @Override
            public void fetchInitiated(FetchProgress p) {
                assertThat(p.totalBytes()).isEqualTo(size);
                initiated.set(true);
            }

            @Override
            public void bytesTransferred(FetchProgress p) {
                progress.add(p);
            }

            @Override
            public void fetchComplete(CompletedFetch result) {
                completed.add(result);
            }
        };
        CompletedFetch done;
        try (Broadcast b = broadcast(s3).addListener(listener).build()) {
            done = b.fetch(FetchRequest.of(s3.bucket(), object.key())).join();
        }
        assertThat(done.path()).isEqualTo(dir.resolve("large.bin"));
        assertThat(sha256(done.path())).isEqualTo(object.sha256());
        assertThat(done.size()).isEqualTo(size);
        assertThat(done.eTag()).isEqualTo(object.eTag());
        assertThat(done.bytesFromS3()).isGreaterThanOrEqualTo(size);
        assertThat(done.checksumVerified()).isEqualTo(s3.supports(S3Feature.GET_CHECKSUMS));
        assertThat(initiated).isTrue();
        assertThat(progress).hasSize(65);
        assertThat(progress.get(progress.size() - 1).transferredBytes()).isEqualTo(size);
        assertThat(progress.stream().mapToLong(FetchProgress::transferredBytes)).isSorted();
        assertThat(completed).containsExactly(done);
        assertThat(listFiles()).containsExactly(done.path());
    }

    @Test
    void emptyAndOneByteObjects(S3Fixture s3) throws Exception {
        s3.putBytes(s3.key("empty"), new byte[0]);
        s3.putBytes(s3.key("one"), new byte[] {7});
        try (Broadcast b = broadcast(s3).build()) {
            CompletedFetch empty = b.fetch(FetchRequest.of(s3.bucket(), s3.key("empty"))).join();
            CompletedFetch one = b.fetch(FetchRequest.of(s3.bucket(), s3.key("one"))).join();
            assertThat(Files.size(empty.path())).isZero();
            assertThat(Files.readAllBytes(one.path())).containsExactly(7);
        }
        assertThat(listFiles()).hasSize(2);
    }

    @Test
    void staticFetchUsesSystemProperties(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("static.bin"), 3_000_000, 5);
        var creds = s3.credentialsProvider().resolveCredentials();
        String[][] props = {
            {"s3broadcast.endpoint", s3.endpoint().toString()},
            {"s3broadcast.region", s3.region().id()},
            {"s3broadcast.destination", dir.toString()},
            {"aws.accessKeyId", creds.accessKeyId()},
            {"aws.secretAccessKey", creds.secretAccessKey()},
        };
        for (String[] p : props) {
            System.setProperty(p[0], p[1]);
        }
        try {
            CompletedFetch done = Broadcast.fetch(s3.bucket(), object.key());
            assertThat(sha256(done.path())).isEqualTo(object.sha256());
            CompletedFetch again = Broadcast.fetchAsync(s3.bucket(), object.key()).get(60, TimeUnit.SECONDS);
            assertThat(again.path()).isEqualTo(done.path());
        } finally {
            for (String[] p : props) {
                System.clearProperty(p[0]);
            }
        }
    }

    @Test
    void missingKeyAndBucketAreNamed(S3Fixture s3) throws Exception {
        try (Broadcast b = broadcast(s3).build()) {
            FetchHandle h = b.fetch(FetchRequest.of(s3.bucket(), s3.key("no/such/key")));
            assertThatThrownBy(h::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                    .hasMessageContaining(s3.bucket()).hasMessageContaining(s3.key("no/such/key"));
            FetchHandle h2 = b.fetch(FetchRequest.of("no-such-bucket-s3b", "k"));
            assertThatThrownBy(h2::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                    .hasMessageContaining("no-such-bucket-s3b");
        }
        assertThat(listFiles()).isEmpty();
    }

    @Test
    void badCredentialsAreAccessDenied(S3Fixture s3) throws Exception {
        s3.assumeSupports(S3Feature.REJECTS_UNKNOWN_CREDENTIALS);
        s3.putBytes(s3.key("secret"), new byte[] {1, 2, 3});
        try (Broadcast b = broadcast(s3)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("wrong", "wrong")))
                .build()) {
            FetchHandle h = b.fetch(FetchRequest.of(s3.bucket(), s3.key("secret")));
            assertThatThrownBy(h::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.AccessDenied.class)
                    .hasMessageContaining(s3.bucket());
        }
        assertThat(listFiles()).isEmpty();
    }

    @Test
    void unwritableDestinationIsClearAndFetchesNothing(S3Fixture s3) throws Exception {
        s3.putBytes(s3.key("obj"), new byte[] {1});
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "x");
        try (Broadcast b = broadcast(s3).build()) {
            FetchHandle h = b.fetch(FetchRequest.builder().bucket(s3.bucket()).key(s3.key("obj"))
                    .destination(notADirectory.resolve("obj")).build());
            assertThatThrownBy(h::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.DestinationUnusable.class)
                    .hasMessageContaining(notADirectory.toString());
            assertThat(h.progress().bytesFromS3()).isZero();
        }
    }

    @Test
    void objectReplacedDuringTheFetchFailsAndLeavesNothing(S3Fixture s3) throws Exception {
        s3.assumeSupports(S3Feature.IF_MATCH_ON_GET);
        String key = s3.key("changing.bin");
        s3.putRandom(key, 24L << 20, 1);
        AtomicBoolean replaced = new AtomicBoolean();
        FetchListener replaceAfterFirstPiece = new FetchListener() {
            @Override
            public void bytesTransferred(FetchProgress p) {
                if (replaced.compareAndSet(false, true)) {
                    s3.overwriteRandom(key, 24L << 20, 2);
                }
            }
        };
        try (Broadcast b = broadcast(s3).connections(1).rangeSize(1 << 20).addListener(replaceAfterFirstPiece).build()) {
            FetchHandle h = b.fetch(FetchRequest.of(s3.bucket(), key));
            assertThatThrownBy(h::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.ObjectChanged.class)
                    .hasMessageContaining(key).hasMessageContaining("again");
        }
        assertThat(replaced).isTrue();
        assertThat(listFiles()).isEmpty();
    }

    @Test
    void cancellationRemovesEverything(S3Fixture s3) throws Exception {
        String key = s3.key("cancelled.bin");
        s3.putRandom(key, 32L << 20, 3);
        CountDownLatch firstPiece = new CountDownLatch(1);
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        FetchListener listener = new FetchListener() {
            @Override
            public void bytesTransferred(FetchProgress p) {
                firstPiece.countDown();
            }

            @Override
            public void fetchFailed(Throwable cause) {
                failed.complete(cause);
            }
        };
        try (Broadcast b = broadcast(s3).connections(2).rangeSize(1 << 20).addListener(listener).build()) {
            FetchHandle h = b.fetch(FetchRequest.of(s3.bucket(), key));
            assertThat(firstPiece.await(60, TimeUnit.SECONDS)).isTrue();
            h.cancel();
            assertThatThrownBy(h::join).isInstanceOf(CancellationException.class);
            assertThat(failed.get(60, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            assertThat(h.progress().completedPieces()).isLessThan(32);
        }
        assertThat(listFiles()).isEmpty();
    }

    private List<Path> listFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            // Records of what a fetch put where (.NAME.s3broadcast) are meant to stay.
            return s.filter(p -> !p.getFileName().toString().equals("a-file"))
                    .filter(p -> !p.getFileName().toString().endsWith(".s3broadcast")).toList();
        }
    }

    static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
