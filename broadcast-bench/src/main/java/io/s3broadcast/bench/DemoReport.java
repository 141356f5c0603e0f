package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The JSON line of {@code demo}; every field is described in {@code docs/bench.md}.
 *
 * @param command always {@code demo}
 * @param size object size in bytes
 * @param endpointKind always {@code embedded}
 * @param server server name, {@code s3proxy}
 * @param endpoint the endpoint URL
 * @param bucket the object's bucket
 * @param key the object's key
 * @param strategy the strategy the fetch used
 * @param path where the fetched object was put
 * @param kept whether the file was left there
 * @param bytes bytes on disk
 * @param seconds the fetch's own duration
 * @param rate MB/s (10^6 bytes per second) over the fetch
 * @param bytesFromS3 bytes read from S3, retries included
 * @param bytesFromPeers bytes received from other nodes
 * @param checksumVerified whether the fetch checked the whole file against S3's own checksum
 * @param sha256 the object's SHA-256 (from the generator)
 * @param sha256Match whether the fetched file has that SHA-256 (checked by the bench, untimed)
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "size", "endpointKind", "server", "endpoint", "bucket", "key", "strategy", "path",
        "kept", "bytes", "seconds", "rate", "bytesFromS3", "bytesFromPeers", "checksumVerified", "sha256",
        "sha256Match", "machine"})
record DemoReport(
        String command,
        long size,
        String endpointKind,
        String server,
        String endpoint,
        String bucket,
        String key,
        String strategy,
        String path,
        boolean kept,
        long bytes,
        double seconds,
        double rate,
        long bytesFromS3,
        long bytesFromPeers,
        boolean checksumVerified,
        String sha256,
        boolean sha256Match,
        Machine machine) {
}
