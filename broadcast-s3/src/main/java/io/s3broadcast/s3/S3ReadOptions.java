package io.s3broadcast.s3;

import io.s3broadcast.spi.ReadOptions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.RequestPayer;

/** Puts a fetch's {@link ReadOptions} on its HEAD and GET requests, the same headers on both. */
final class S3ReadOptions {

    static final String SSE_C_ALGORITHM = "AES256";

    private S3ReadOptions() {
    }

    static HeadObjectRequest.Builder apply(HeadObjectRequest.Builder b, ReadOptions o) {
        set(o, b::versionId, b::expectedBucketOwner, b::requestPayer, b::sseCustomerAlgorithm, b::sseCustomerKey,
                b::sseCustomerKeyMD5);
        return b;
    }

    static GetObjectRequest.Builder apply(GetObjectRequest.Builder b, ReadOptions o) {
        set(o, b::versionId, b::expectedBucketOwner, b::requestPayer, b::sseCustomerAlgorithm, b::sseCustomerKey,
                b::sseCustomerKeyMD5);
        return b;
    }

    /** One place for the headers: the SDK's HEAD and GET builders share the setters but no interface. */
    private static void set(ReadOptions o, Consumer<String> versionId, Consumer<String> owner,
            Consumer<RequestPayer> payer, Consumer<String> sseAlgorithm, Consumer<String> sseKey,
            Consumer<String> sseKeyMd5) {
        o.versionId().ifPresent(versionId);
        o.expectedBucketOwner().ifPresent(owner);
        if (o.requesterPays()) {
            payer.accept(RequestPayer.REQUESTER);
        }
        o.sseCustomerKey().ifPresent(k -> {
            sseAlgorithm.accept(SSE_C_ALGORITHM);
            sseKey.accept(base64(k));
            sseKeyMd5.accept(md5Base64(k));
        });
    }

    private static String base64(byte[] key) {
        return Base64.getEncoder().encodeToString(key);
    }

    private static String md5Base64(byte[] key) {
        try {
            return base64(MessageDigest.getInstance("MD5").digest(key));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no MD5 in this JVM", e);
        }
    }
}
