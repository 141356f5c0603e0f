package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.testkit.S3Server;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3CrtAsyncClientBuilder;

/**
 * Where the benchmarked object is served from and how to sign requests to it; every method's client is
 * built from here, so all of them talk to the same server the same way.
 *
 * @param kind {@code embedded} (S3Proxy started by the bench) or {@code external}
 * @param server short server name, e.g. {@code s3proxy}, or the endpoint's host for an external one
 * @param uri the endpoint, or null for AWS's regional endpoint
 * @param region signing region
 * @param credentials credentials the server accepts
 * @param pathStyle path-style addressing
 */
record Endpoint(String kind, String server, URI uri, Region region, AwsCredentialsProvider credentials,
        boolean pathStyle) {

    static final String EMBEDDED = "embedded";
    static final String EXTERNAL = "external";

    /** The bench's own server started from the testkit. */
    static Endpoint embedded(S3Server server) {
        return new Endpoint(EMBEDDED, server.name(), server.endpoint(), server.region(), server.credentialsProvider(),
                server.pathStyle());
    }

    /** An existing endpoint (or AWS when {@code uri} is null); credentials from the SDK's default chain. */
    static Endpoint external(URI uri, Region region, Boolean pathStyle) {
        String server = uri == null ? "aws-s3" : uri.getHost();
        return new Endpoint(EXTERNAL, server, uri, region, DefaultCredentialsProvider.builder().build(),
                pathStyle != null ? pathStyle : uri != null);
    }

    /** {@link #external(URI, Region, Boolean)} with the region by name, or from the SDK's region chain when null. */
    static Endpoint external(URI uri, String region, Boolean pathStyle) {
        return external(uri, region != null ? Region.of(region)
                : new software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain().getRegion(), pathStyle);
    }

    /** This server as reached through {@code proxy} (a FaultProxy in front of it, or one of its ports). */
    Endpoint via(URI proxy) {
        return new Endpoint(kind, server, proxy, region, credentials, pathStyle);
    }

    /** The endpoint as printed: its URI, or AWS's regional endpoint. */
    String describe() {
        return uri != null ? uri.toString() : "https://s3." + region.id() + ".amazonaws.com";
    }

    /** Points a {@link Broadcast} builder at this endpoint. */
    Broadcast.Builder configure(Broadcast.Builder builder) {
        if (uri != null) {
            builder.endpoint(uri);
        }
        return builder.region(region).credentialsProvider(credentials).pathStyle(pathStyle);
    }

    /** An SDK async client builder on the Netty HTTP client, pointed at this endpoint. */
    S3AsyncClientBuilder nettyClient(int maxConnections) {
        S3AsyncClientBuilder b = S3AsyncClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .forcePathStyle(pathStyle)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(maxConnections));
        if (uri != null) {
            b.endpointOverride(uri);
        }
        return b;
    }

    /** The SDK's CRT-based S3 client builder, pointed at this endpoint. */
    S3CrtAsyncClientBuilder crtClient() {
        S3CrtAsyncClientBuilder b = S3AsyncClient.crtBuilder()
                .region(region)
                .credentialsProvider(credentials)
                .forcePathStyle(pathStyle);
        if (uri != null) {
            b.endpointOverride(uri);
        }
        return b;
    }
}
