package io.s3broadcast.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3CrtAsyncClientBuilder;
import software.amazon.awssdk.transfer.s3.S3TransferManager;
import software.amazon.awssdk.transfer.s3.model.DownloadFileRequest;

/**
 * The AWS SDK's S3 Transfer Manager {@code downloadFile} on the CRT-based S3 client: the reference we must match.
 *
 * <p>Response checksum validation is off. The CRT client would otherwise insist on checksum headers for every
 * part, which S3Proxy does not send, and over plain HTTP it cannot fall back; with it off the Transfer Manager
 * does no verification at all, so this is the most favourable setting for it.
 *
 * <p>{@code single} always gives it our connection count as {@code maxConcurrency}: left to derive it from the
 * default 10 Gbit/s target, the CRT client opens so many connections that on two cores shared with the server it
 * ran at about a third of its speed with 16, which would flatter us.
 */
final class TransferManagerMethod implements DownloadMethod {

    static final String NAME = "transferManager";
    /** The CRT client's own default; reported when the user sets none. */
    static final double DEFAULT_TARGET_GBPS = 10.0;
    /** The CRT client's own default part size. */
    static final long DEFAULT_PART_SIZE = 8L << 20;

    private final S3AsyncClient client;
    private final S3TransferManager transferManager;
    private final Map<String, Object> settings = new LinkedHashMap<>();

    TransferManagerMethod(Endpoint endpoint, Tuning tuning) {
        double gbps = tuning.targetThroughputGbps() != null ? tuning.targetThroughputGbps() : DEFAULT_TARGET_GBPS;
        long partSize = tuning.rangeSize() != null ? tuning.rangeSize() : DEFAULT_PART_SIZE;
        S3CrtAsyncClientBuilder builder = endpoint.crtClient()
                .checksumValidationEnabled(false)
                .targetThroughputInGbps(gbps)
                .minimumPartSizeInBytes(partSize);
        if (tuning.connections() != null) {
            builder.maxConcurrency(tuning.connections());
        }
        this.client = builder.build();
        this.transferManager = S3TransferManager.builder().s3Client(client).build();
        settings.put("api", "S3TransferManager.downloadFile");
        settings.put("client", "S3AsyncClient.crtBuilder()");
        settings.put("targetThroughputGbps", gbps);
        settings.put("minimumPartSizeBytes", partSize);
        settings.put("maxConcurrency", tuning.connections() != null ? tuning.connections() : "SDK default (from the target throughput)");
        settings.put("checksumValidation", false);
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
        transferManager.downloadFile(DownloadFileRequest.builder()
                        .getObjectRequest(b -> b.bucket(bucket).key(key))
                        .destination(destination)
                        .build())
                .completionFuture()
                .join();
        return System.nanoTime();
    }

    @Override
    public void close() {
        transferManager.close();
        client.close();
    }
}
