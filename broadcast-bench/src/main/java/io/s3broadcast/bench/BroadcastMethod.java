package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Our fetcher through the public API: {@code Broadcast.fetch} with the flat tree. Its time includes the fetch's
 * own verification (S3's checksum computed as pieces land, the rest after the last), which the other methods do
 * not do.
 */
final class BroadcastMethod implements DownloadMethod {

    static final String NAME = "ours";

    private final Broadcast broadcast;
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private volatile CompletedFetch last;

    BroadcastMethod(Endpoint endpoint, Tuning tuning, Path directory) {
        Broadcast.Builder builder = endpoint.configure(Broadcast.builder()).destinationDirectory(directory);
        if (tuning.connections() != null) {
            builder.connections(tuning.connections());
        }
        if (tuning.rangeSize() != null) {
            builder.rangeSize(tuning.rangeSize());
        }
        if (tuning.pieceSize() != null) {
            builder.pieceSize(Math.toIntExact(tuning.pieceSize()));
        }
        if (tuning.httpClient() != null) {
            builder.httpClient(tuning.httpClient());
        }
        this.broadcast = builder.build();
        settings.put("api", "Broadcast.fetch (flat tree)");
        settings.put("httpClient", tuning.httpClient() != null ? tuning.httpClient() : "default");
        settings.put("connections", tuning.connections() != null ? tuning.connections() : "default");
        settings.put("rangeSize", tuning.rangeSize() != null ? tuning.rangeSize() : "default");
        settings.put("pieceSize", tuning.pieceSize() != null ? tuning.pieceSize() : "default");
        settings.put("verifies", "every piece's CRC32C while writing, S3's checksum as pieces land");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Object> settings() {
        return settings;
    }

    @Override
    public long download(String bucket, String key, Path destination) {
        LastByte lastByte = new LastByte();
        last = broadcast.fetch(FetchRequest.builder().bucket(bucket).key(key).destination(destination).force(true)
                .addListener(lastByte).build()).join();
        return lastByte.nanos != 0 ? lastByte.nanos : System.nanoTime();
    }

    /** {@code Broadcast.fetch} fsyncs the file and its directory before it renames the file into place. */
    @Override
    public boolean syncsToDisk() {
        return true;
    }

    /** The result of the latest download, or null. */
    CompletedFetch last() {
        return last;
    }

    @Override
    public void close() {
        broadcast.close();
    }

    /** Notes when the last piece landed: the download is over, the rest of the verification and the commit begin. */
    private static final class LastByte implements FetchListener {
        volatile long nanos;

        @Override
        public void bytesTransferred(FetchProgress progress) {
            if (progress.totalBytes() >= 0 && progress.transferredBytes() == progress.totalBytes()) {
                nanos = System.nanoTime();
            }
        }
    }
}
