package io.s3broadcast.bench.chaos;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What a scenario works with: the object on the S3 endpoint, how to start honest {@code node} processes against
 * it, and the run's settings.
 *
 * @param endpoint the S3 endpoint the nodes read from
 * @param region its signing region
 * @param credentials environment variables that give a node process its S3 credentials and region
 * @param pathStyle path-style addressing
 * @param bucket bucket of the object
 * @param key key of the object
 * @param eTag the object's ETag (a stranger learns it with a HEAD)
 * @param size the object's size
 * @param sha256 hex SHA-256 of the object, to check what the honest nodes published
 * @param nodes honest nodes per scenario
 * @param handshakeTimeout the nodes' handshake timeout
 * @param nodeTimeout how long a node process may take before the scenario gives up on it
 * @param workDir where each scenario keeps its files
 * @param command how to start a {@code node}: java, options and main class (the {@code node} arguments follow)
 * @param undigested a second object on the same endpoint that nothing S3 tells binds end to end (a multipart
 *     upload on a server that tells no part sizes and keeps no checksum), for the lying scenarios' variants
 *     without an end-to-end digest; null when there is none
 */
public record ChaosContext(URI endpoint, String region, Map<String, String> credentials, boolean pathStyle,
        String bucket, String key, String eTag, long size, String sha256, int nodes, Duration handshakeTimeout,
        Duration nodeTimeout, Path workDir, java.util.List<String> command, ChaosObject undigested) {

    public ChaosContext {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(eTag, "eTag");
        credentials = Map.copyOf(credentials);
        command = java.util.List.copyOf(command);
        if (nodes < 1) {
            throw new IllegalArgumentException("at least one honest node is needed, was " + nodes);
        }
    }

    /** This context with {@code o} as the object the nodes fetch. */
    public ChaosContext on(ChaosObject o) {
        return new ChaosContext(endpoint, region, credentials, pathStyle, o.bucket(), o.key(), o.eTag(), o.size(),
                o.sha256(), nodes, handshakeTimeout, nodeTimeout, workDir, command, undigested);
    }

    /** This context with the nodes reading through {@code s3} (a fault-injecting proxy) and {@code nodeTimeout}. */
    public ChaosContext through(URI s3, Duration timeout) {
        return new ChaosContext(s3, region, credentials, pathStyle, bucket, key, eTag, size, sha256, nodes,
                handshakeTimeout, timeout, workDir, command, undigested);
    }

    /**
     * What binds this object's bytes end to end, as the nodes see it on a server without checksums (S3Proxy): a
     * single-part ETag is the MD5; a multipart one cannot be checked without part sizes, so only the spot check
     * against S3 is left.
     */
    public String endToEndDigest() {
        return eTag.contains("-") ? "none (multipart ETag, no checksum): spot check" : "MD5 ETag";
    }

    /** A fleet of {@code nodes} honest nodes in one static registry of free loopback ports, not started yet. */
    public NodeFleet fleet(String scenario, int nodes) throws java.io.IOException {
        return new NodeFleet(this, workDir.resolve(scenario), nodes, 0);
    }

    /** Like {@link #fleet(String, int)}, with {@code otherMembers} more registry members the scenario starts. */
    public NodeFleet fleet(String scenario, int nodes, int otherMembers) throws java.io.IOException {
        return new NodeFleet(this, workDir.resolve(scenario), nodes, otherMembers);
    }
}
