package io.s3broadcast.s3.registry;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * Makes a real S3 server's ETags look like SSE-KMS ones to the client: random hex, not the MD5 of the content, and
 * a new one for every PUT even of the same bytes. Conditional headers the client sends are mapped back.
 */
final class OpaqueETags implements ExecutionInterceptor {

    private final SecureRandom random = new SecureRandom();
    private final Map<String, String> toReal = new ConcurrentHashMap<>();
    private final Map<String, String> toOpaque = new ConcurrentHashMap<>();
    private final AtomicLong rewritten = new AtomicLong();

    long rewritten() {
        return rewritten.get();
    }

    private String fresh(String real) {
        byte[] b = new byte[16];
        random.nextBytes(b);
        String opaque = "\"" + HexFormat.of().formatHex(b) + "\"";
        toReal.put(opaque, real);
        toOpaque.put(real, opaque);
        return opaque;
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        SdkHttpRequest request = context.httpRequest();
        SdkHttpRequest.Builder b = request.toBuilder();
        for (String header : new String[] {"If-Match", "If-None-Match"}) {
            request.firstMatchingHeader(header).ifPresent(v -> b.putHeader(header, toReal.getOrDefault(v, v)));
        }
        return b.build();
    }

    @Override
    public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        SdkHttpResponse response = context.httpResponse();
        var eTag = response.firstMatchingHeader("ETag");
        if (eTag.isEmpty()) {
            return response;
        }
        String real = eTag.get();
        boolean put = context.httpRequest().method().name().equals("PUT");
        String opaque = put ? fresh(real) : toOpaque.computeIfAbsent(real, r -> fresh(r));
        rewritten.incrementAndGet();
        return response.toBuilder().putHeader("ETag", opaque).build();
    }
}
