package io.s3broadcast.testkit;

/**
 * An object a fixture wrote: where it is, how big, its SHA-256 (hex, of the whole content) and the
 * ETag the server gave it (with quotes, as S3 returns it).
 */
public record StoredObject(String bucket, String key, long size, String sha256, String eTag) {}
