package io.s3broadcast.registry;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * The identity of one broadcast: the object (bucket, key, ETag) and an optional name that lets two
 * independent broadcasts of the same object keep apart.
 *
 * <p>{@link #hash()} is a stable name for the group, usable as one S3 key or ZooKeeper path component:
 * 32 lower-case hex digits, the first 128 bits of SHA-256 over {@code "s3-broadcast-group/v1"} followed by
 * bucket, key, ETag and name, each as its UTF-8 byte count (4 bytes, big-endian) then its bytes; an absent
 * name is written as count -1. The ETag is taken without surrounding quotes, so {@code "abc"} and
 * {@code abc} name the same group. This encoding never changes; a new one gets a new version tag.
 */
public final class GroupId {

    private static final byte[] TAG = "s3-broadcast-group/v1".getBytes(StandardCharsets.UTF_8);

    private final String bucket;
    private final String key;
    private final String eTag;
    private final String name;
    private final String hash;

    private GroupId(String bucket, String key, String eTag, String name) {
        this.bucket = requireText(bucket, "bucket");
        this.key = requireText(key, "key");
        this.eTag = unquote(requireText(eTag, "eTag"));
        this.name = name == null || name.isEmpty() ? null : name;
        this.hash = computeHash();
    }

    /** The group of everyone fetching this version of the object. */
    public static GroupId of(String bucket, String key, String eTag) {
        return new GroupId(bucket, key, eTag, null);
    }

    /** A named group of the object's fetchers; a null or empty name is the same as {@link #of(String, String, String)}. */
    public static GroupId of(String bucket, String key, String eTag, String name) {
        return new GroupId(bucket, key, eTag, name);
    }

    public String bucket() {
        return bucket;
    }

    public String key() {
        return key;
    }

    /** The ETag without surrounding quotes. */
    public String eTag() {
        return eTag;
    }

    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /** 32 lower-case hex digits naming this group; the same on every node, JVM and release. */
    public String hash() {
        return hash;
    }

    private String computeHash() {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        sha.update(TAG);
        field(sha, bucket);
        field(sha, key);
        field(sha, eTag);
        field(sha, name);
        byte[] digest = sha.digest();
        return HexFormat.of().formatHex(digest, 0, 16);
    }

    private static void field(MessageDigest sha, String value) {
        if (value == null) {
            sha.update(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
            return;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        int n = bytes.length;
        sha.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        sha.update(bytes);
    }

    private static String requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }

    private static String unquote(String eTag) {
        if (eTag.length() >= 2 && eTag.startsWith("\"") && eTag.endsWith("\"")) {
            String inner = eTag.substring(1, eTag.length() - 1);
            if (inner.isEmpty()) {
                throw new IllegalArgumentException("eTag must not be empty");
            }
            return inner;
        }
        return eTag;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GroupId g && bucket.equals(g.bucket) && key.equals(g.key) && eTag.equals(g.eTag)
                && Objects.equals(name, g.name);
    }

    @Override
    public int hashCode() {
        return hash.hashCode();
    }

    /** {@code s3://bucket/key@ETag}, then {@code #name} when there is one. */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key + "@" + eTag + (name == null ? "" : "#" + name);
    }
}
