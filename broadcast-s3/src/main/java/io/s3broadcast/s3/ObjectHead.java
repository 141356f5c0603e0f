package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectMetadata;
import io.s3broadcast.spi.ReadOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesParts;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesRequest;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectPart;

/**
 * The HEAD of a fetch: size, ETag, version id (when the bucket is versioned), and S3's whole-object checksum
 * when it has one. A {@code COMPOSITE} checksum, like a multipart ETag, is only useful with the sizes of the
 * multipart upload's parts, so those are asked for too:
 * first with GetObjectAttributes (paginated), else with one {@code HEAD ?partNumber=n} per part. When the
 * server can tell neither, the checksum is left out (logged at DEBUG) and the fetch relies on the pieces'
 * CRC32C alone.
 */
final class ObjectHead {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectHead.class);
    private static final int PAGE = 1000;

    /** S3's checksum headers in order of preference, by S3's name for the algorithm. */
    private static final List<Map.Entry<String, Function<HeadObjectResponse, String>>> ALGORITHMS = List.of(
            Map.entry("CRC64NVME", HeadObjectResponse::checksumCRC64NVME),
            Map.entry("CRC32C", HeadObjectResponse::checksumCRC32C),
            Map.entry("CRC32", HeadObjectResponse::checksumCRC32),
            Map.entry("SHA256", HeadObjectResponse::checksumSHA256),
            Map.entry("SHA1", HeadObjectResponse::checksumSHA1),
            Map.entry("SHA512", HeadObjectResponse::checksumSHA512),
            Map.entry("MD5", HeadObjectResponse::checksumMD5),
            Map.entry("XXHASH64", HeadObjectResponse::checksumXXHASH64),
            Map.entry("XXHASH3", HeadObjectResponse::checksumXXHASH3),
            Map.entry("XXHASH128", HeadObjectResponse::checksumXXHASH128));

    private final S3AsyncClient client;
    private final ReadOptions options;
    private final Retrier retrier;
    private final Duration requestTimeout;
    private final int concurrency;

    /**
     * @param retrier retries the HEAD and the part-size requests, each attempt within its time limit
     * @param requestTimeout limit on the single HEAD of the bucket that follows a 404
     * @param concurrency how many part HEADs to send at once when GetObjectAttributes is not available
     */
    ObjectHead(S3AsyncClient client, Retrier retrier, Duration requestTimeout, int concurrency) {
        this(client, retrier, requestTimeout, concurrency, ReadOptions.NONE);
    }

    /** @param options what every HEAD (and, through the returned info, every GET) of this object carries */
    ObjectHead(S3AsyncClient client, Retrier retrier, Duration requestTimeout, int concurrency, ReadOptions options) {
        this.options = options;
        this.client = client;
        this.retrier = retrier;
        this.requestTimeout = requestTimeout;
        this.concurrency = Math.max(1, concurrency);
    }

    CompletableFuture<ObjectInfo> head(String bucket, String key) {
        return head(bucket, key, false);
    }

    /** @param multipartETag also learn what a multipart ETag digests (the part sizes), even without a composite checksum */
    CompletableFuture<ObjectInfo> head(String bucket, String key, boolean multipartETag) {
        String name = "s3://" + bucket + "/" + key;
        CompletableFuture<HeadObjectResponse> head = retrier.call("HEAD " + name,
                () -> client.headObject(S3ReadOptions.apply(HeadObjectRequest.builder()
                        .bucket(bucket)
                        .key(key)
                        .checksumMode(ChecksumMode.ENABLED), options)
                        .build()),
                (e, n) -> Failures.toBroadcastException(Failures.classify(e), e, bucket, key, "", "HEAD", n));
        CompletableFuture<ObjectInfo> info = head
                .exceptionallyCompose(e -> whyNotFound(bucket, key, e))
                .thenCompose(r -> toInfo(bucket, key, r, multipartETag));
        info.whenComplete((v, e) -> {
            if (e != null) {
                head.cancel(true);
            }
        });
        return info;
    }

    /** After a 404 on HEAD (which has no body to say which), asks whether the bucket exists. */
    private CompletableFuture<HeadObjectResponse> whyNotFound(String bucket, String key, Throwable failure) {
        Throwable e = Failures.unwrap(failure);
        if (!(e instanceof BroadcastException.ObjectNotFound)) {
            return CompletableFuture.failedFuture(e);
        }
        String name = "s3://" + bucket + "/" + key;
        return client.headBucket(b -> b.bucket(bucket).expectedBucketOwner(options.expectedBucketOwner().orElse(null))
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(requestTimeout)))
                .handle((r, bucketFailure) -> {
                    if (bucketFailure == null) {
                        throw new BroadcastException.ObjectNotFound(name + " does not exist: bucket " + bucket
                                + " has no key " + key, e.getCause());
                    }
                    if (Failures.classify(bucketFailure) == Failures.Kind.NOT_FOUND) {
                        throw new BroadcastException.ObjectNotFound("bucket " + bucket + " does not exist (looking for "
                                + name + ")", e.getCause());
                    }
                    throw new BroadcastException.ObjectNotFound(name + " does not exist (no such key, or no such bucket)",
                            e.getCause());
                });
    }

    private CompletableFuture<ObjectInfo> toInfo(String bucket, String key, HeadObjectResponse r, boolean multipartETag) {
        String name = "s3://" + bucket + "/" + key;
        if (r.eTag() == null || r.contentLength() == null) {
            return CompletableFuture.failedFuture(new BroadcastException("HEAD of " + name
                    + " returned no ETag or no Content-Length; the server is not S3-compatible enough to fetch from"));
        }
        long size = r.contentLength();
        String eTag = r.eTag();
        Optional<String> versionId = Optional.ofNullable(r.versionId()).filter(v -> !v.isBlank());
        boolean encrypted = isKmsOrCustomerKey(r);
        int eTagParts = encrypted ? -1 : ObjectInfo.eTagParts(eTag);
        ObjectMetadata metadata = new ObjectMetadata(Optional.ofNullable(r.contentType()).filter(t -> !t.isBlank()),
                Optional.ofNullable(r.lastModified()), r.hasMetadata() ? r.metadata() : Map.of());
        Map.Entry<String, String> found = null;
        for (Map.Entry<String, Function<HeadObjectResponse, String>> a : ALGORITHMS) {
            String value = a.getValue().apply(r);
            if (value != null && !value.isBlank()) {
                found = Map.entry(a.getKey(), value.trim());
                break;
            }
        }
        Optional<ObjectChecksum> fullObject = Optional.empty();
        String algorithm = null;
        String value = null;
        int checksumParts = 0;
        if (found == null) {
            LOG.debug("{} has no checksum S3 reports on HEAD", name);
        } else {
            algorithm = found.getKey();
            value = found.getValue();
            int dash = value.lastIndexOf('-');
            boolean composite = r.checksumType() == ChecksumType.COMPOSITE
                    || (r.checksumType() != ChecksumType.FULL_OBJECT && dash > 0);
            if (!composite) {
                fullObject = Optional.of(ObjectChecksum.fullObject(algorithm, value));
            } else {
                try {
                    checksumParts = Integer.parseInt(value.substring(dash + 1));
                } catch (NumberFormatException | IndexOutOfBoundsException e) {
                    LOG.debug("{} has a composite {} checksum {} without a part count; not checking it", name, algorithm,
                            value);
                }
            }
        }
        // A composite checksum and a multipart ETag both need the part sizes: asked for once, and for the ETag
        // alone only when asked to (a cluster broadcast; the flat tree reads everything from S3 itself).
        int parts = checksumParts > 0 ? checksumParts : multipartETag ? Math.max(eTagParts, 0) : 0;
        if (parts == 0) {
            return CompletableFuture.completedFuture(new ObjectInfo(bucket, key, size, eTag, fullObject, versionId,
                    ObjectInfo.eTagDigest(eTag, encrypted, List.of()), options, metadata));
        }
        Optional<ObjectChecksum> full = fullObject;
        String alg = algorithm;
        String val = value;
        int cParts = checksumParts;
        return partSizes(bucket, key, eTag, parts, size).thenApply(sizes -> {
            Optional<ObjectChecksum> checksum = cParts > 0
                    ? sizes.map(s -> new ObjectChecksum(alg, val, false, s)) : full;
            Optional<ObjectChecksum> eTagDigest = eTagParts > 0
                    ? sizes.flatMap(s -> ObjectInfo.eTagDigest(eTag, encrypted, s))
                    : ObjectInfo.eTagDigest(eTag, encrypted, List.of());
            return new ObjectInfo(bucket, key, size, eTag, checksum, versionId, eTagDigest, options, metadata);
        });
    }

    /** SSE-KMS (or DSSE-KMS) and SSE-C objects have ETags that are not the MD5 of their bytes. */
    private static boolean isKmsOrCustomerKey(HeadObjectResponse r) {
        String sse = r.serverSideEncryptionAsString();
        return (sse != null && sse.toLowerCase(java.util.Locale.ROOT).contains("kms"))
                || (r.sseCustomerAlgorithm() != null && !r.sseCustomerAlgorithm().isBlank());
    }

    /** The sizes of the object's {@code parts} parts, or empty (logged) when the server cannot tell them. */
    CompletableFuture<Optional<List<Long>>> partSizes(String bucket, String key, String eTag, int parts, long size) {
        String name = "s3://" + bucket + "/" + key;
        return attributeParts(bucket, key, eTag, 0, new ArrayList<>())
                .handle((sizes, e) -> {
                    if (e != null) {
                        LOG.debug("GetObjectAttributes of {} failed ({}); asking each part's size with HEAD", name,
                                Failures.describe(e));
                        return null;
                    }
                    Optional<List<Long>> checked = check(name, "GetObjectAttributes", sizes, parts, size);
                    return checked.isPresent() ? CompletableFuture.completedFuture(checked) : null;
                })
                .thenCompose(done -> done != null ? done : headParts(bucket, key, eTag, parts)
                        .handle((sizes, e) -> {
                            if (e != null) {
                                LOG.debug("cannot learn the part sizes of {} ({}): its composite checksum and multipart ETag "
                                        + "cannot be checked", name, Failures.describe(e));
                                return Optional.<List<Long>>empty();
                            }
                            return check(name, "HEAD ?partNumber", sizes, parts, size);
                        }));
    }

    private CompletableFuture<List<Long>> attributeParts(String bucket, String key, String eTag, int marker,
            List<Long> sizes) {
        GetObjectAttributesRequest request = GetObjectAttributesRequest.builder()
                .bucket(bucket)
                .key(key)
                .objectAttributes(ObjectAttributes.OBJECT_PARTS, ObjectAttributes.E_TAG)
                .maxParts(PAGE)
                .partNumberMarker(marker)
                .build();
        return retrier.<GetObjectAttributesResponse>call("GetObjectAttributes s3://" + bucket + "/" + key,
                        () -> client.getObjectAttributes(request), (e, n) -> e)
                .thenCompose(r -> {
                    if (r.eTag() != null && !ETags.unquote(r.eTag()).equals(ETags.unquote(eTag))) {
                        throw new BroadcastException.ObjectChanged("s3://" + bucket + "/" + key
                                + " changed between HEAD and GetObjectAttributes; fetch again", null);
                    }
                    GetObjectAttributesParts p = r.objectParts();
                    if (p == null || !p.hasParts() || p.parts().isEmpty()) {
                        return CompletableFuture.completedFuture(sizes);
                    }
                    for (ObjectPart part : p.parts()) {
                        sizes.add(part.size());
                    }
                    if (Boolean.TRUE.equals(p.isTruncated()) && p.nextPartNumberMarker() != null
                            && p.nextPartNumberMarker() > marker) {
                        return attributeParts(bucket, key, eTag, p.nextPartNumberMarker(), sizes);
                    }
                    return CompletableFuture.completedFuture(sizes);
                });
    }

    private CompletableFuture<List<Long>> headParts(String bucket, String key, String eTag, int parts) {
        Long[] sizes = new Long[parts];
        // Part 1 first: a server that ignores partNumber answers without a parts count, and then asking
        // for the other parts is pointless.
        return headPart(bucket, key, eTag, 1).thenCompose(first -> {
            if (first.partsCount() == null || first.partsCount() != parts) {
                throw new IllegalStateException("HEAD ?partNumber=1 answered with parts count " + first.partsCount()
                        + ", expected " + parts + " (partNumber not supported)");
            }
            sizes[0] = first.contentLength();
            AtomicInteger next = new AtomicInteger(2);
            List<CompletableFuture<Void>> lanes = new ArrayList<>();
            for (int i = 0; i < Math.min(concurrency, parts - 1); i++) {
                lanes.add(headPartLane(bucket, key, eTag, parts, next, sizes));
            }
            return CompletableFuture.allOf(lanes.toArray(new CompletableFuture<?>[0])).thenApply(v -> Arrays.asList(sizes));
        });
    }

    private CompletableFuture<HeadObjectResponse> headPart(String bucket, String key, String eTag, int part) {
        return retrier.call("HEAD part " + part + " of s3://" + bucket + "/" + key,
                () -> client.headObject(b -> S3ReadOptions.apply(b.bucket(bucket).key(key).partNumber(part).ifMatch(eTag),
                        options)),
                (e, n) -> e);
    }

    private CompletableFuture<Void> headPartLane(String bucket, String key, String eTag, int parts, AtomicInteger next,
            Long[] sizes) {
        int part = next.getAndIncrement();
        if (part > parts) {
            return CompletableFuture.completedFuture(null);
        }
        return headPart(bucket, key, eTag, part).thenCompose(r -> {
            sizes[part - 1] = r.contentLength();
            return headPartLane(bucket, key, eTag, parts, next, sizes);
        });
    }

    private static Optional<List<Long>> check(String name, String how, List<Long> sizes, int parts, long size) {
        long sum = 0;
        for (Long s : sizes) {
            if (s == null || s <= 0) {
                LOG.debug("{} gave a part without a size for {}; checking pieces only", how, name);
                return Optional.empty();
            }
            sum += s;
        }
        if (sizes.size() != parts || sum != size) {
            LOG.debug("{} gave {} parts adding up to {} bytes for {}, which has {} parts and {} bytes; checking pieces only",
                    how, sizes.size(), sum, name, parts, size);
            return Optional.empty();
        }
        return Optional.of(List.copyOf(sizes));
    }
}
