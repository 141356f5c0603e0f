package io.s3broadcast.s3;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchRequest;
import java.net.URI;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Fetches one object through the public API and prints its path and peak heap use; run by
 * {@link LargeObjectSmallHeapIT} in a JVM of its own with a small {@code -Xmx}.
 */
public final class SmallHeapFetchMain {

    private SmallHeapFetchMain() {
    }

    public static void main(String[] args) {
        URI endpoint = URI.create(args[0]);
        String bucket = args[1];
        String key = args[2];
        Path destination = Path.of(args[3]);
        try (Broadcast b = Broadcast.builder()
                .endpoint(endpoint)
                .region(Region.of(args[4]))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(args[5], args[6])))
                .build()) {
            CompletedFetch done = b.fetch(FetchRequest.builder().bucket(bucket).key(key).destination(destination).build())
                    .join();
            System.out.println("path=" + done.path());
            System.out.println("size=" + done.size());
            System.out.printf("rate=%.1f MB/s%n", done.megabytesPerSecond());
        }
    }
}
