package io.s3broadcast.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** One plain {@code GetObject} of the whole object streamed to a file: one connection, the baseline. */
final class GetObjectMethod implements DownloadMethod {

    static final String NAME = "getObject";

    private final S3AsyncClient client;
    private final Map<String, Object> settings = new LinkedHashMap<>();

    GetObjectMethod(Endpoint endpoint) {
        this.client = endpoint.nettyClient(1).build();
        settings.put("api", "S3AsyncClient.getObject + AsyncResponseTransformer.toFile");
        settings.put("httpClient", "netty");
        settings.put("connections", 1);
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
        client.getObject(b -> b.bucket(bucket).key(key), AsyncResponseTransformer.toFile(destination)).join();
        return System.nanoTime();
    }

    @Override
    public void close() {
        client.close();
    }
}
