package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Sorts a failed S3 request into what to do about it, and words the error a caller sees. Retried: 5xx
 * but 501, 429, {@code SlowDown}, {@code RequestTimeout}, I/O errors (connection reset or refused,
 * timeouts), and our own {@link TransientReadException} (stalled or truncated bodies). Not retried: 412 (the object
 * changed), 404, 403 and the credential errors, 501 and any other 4xx, and failures of the local side (the store
 * or a listener), which arrive here as {@link BroadcastException}s.
 */
final class Failures {

    /** What a failure means for the fetch. */
    enum Kind {
        RETRY,
        OBJECT_CHANGED,
        NOT_FOUND,
        ACCESS_DENIED,
        CANCELLED,
        FATAL
    }

    private static final Set<String> ACCESS_CODES = Set.of("AccessDenied", "InvalidAccessKeyId",
            "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
            "AuthorizationHeaderMalformed", "InvalidSecurity", "AllAccessDisabled", "AccountProblem",
            "PermanentRedirect", "IllegalLocationConstraintException");
    private static final Set<String> RETRY_CODES = Set.of("SlowDown", "InternalError", "ServiceUnavailable",
            "RequestTimeout", "Throttling", "ThrottlingException", "RequestLimitExceeded", "BandwidthLimitExceeded",
            "RequestThrottled", "TooManyRequestsException", "503 SlowDown");

    private Failures() {
    }

    static Kind classify(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof CancellationException) {
            return Kind.CANCELLED;
        }
        for (Throwable c = t; c != null; c = next(c)) {
            if (c instanceof BroadcastException.ObjectChanged) {
                return Kind.OBJECT_CHANGED;
            }
            if (c instanceof BroadcastException.ObjectNotFound) {
                return Kind.NOT_FOUND;
            }
            if (c instanceof BroadcastException.AccessDenied) {
                return Kind.ACCESS_DENIED;
            }
            if (c instanceof BroadcastException) {
                return Kind.FATAL;
            }
        }
        for (Throwable c = t; c != null; c = next(c)) {
            if (c instanceof SdkServiceException service) {
                return classifyService(service.statusCode(), errorCode(service));
            }
        }
        for (Throwable c = t; c != null; c = next(c)) {
            if (c instanceof CancellationException) {
                return Kind.CANCELLED;
            }
            if (c instanceof IOException || c instanceof TimeoutException || c instanceof ApiCallAttemptTimeoutException
                    || c instanceof ApiCallTimeoutException || isTransportException(c)) {
                return Kind.RETRY;
            }
        }
        if (t instanceof SdkClientException && String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains("credential")) {
            return Kind.ACCESS_DENIED;
        }
        return Kind.FATAL;
    }

    /** Whether S3 asked to slow down (503 SlowDown, 429, or a throttling error code). */
    static boolean throttled(Throwable failure) {
        for (Throwable c = unwrap(failure); c != null; c = next(c)) {
            if (c instanceof SdkServiceException service) {
                String code = errorCode(service);
                return service.statusCode() == 429 || code != null && (code.equals("SlowDown") || code.startsWith("Throttl")
                        || code.equals("RequestLimitExceeded") || code.equals("RequestThrottled")
                        || code.equals("TooManyRequestsException") || code.equals("503 SlowDown"));
            }
        }
        return false;
    }

    static Kind classifyService(int status, String errorCode) {
        if (status == 412 || "PreconditionFailed".equals(errorCode)) {
            return Kind.OBJECT_CHANGED;
        }
        if (status == 404 || "NoSuchKey".equals(errorCode) || "NoSuchBucket".equals(errorCode)) {
            return Kind.NOT_FOUND;
        }
        if (status == 403 || status == 301 || (errorCode != null && ACCESS_CODES.contains(errorCode))) {
            return Kind.ACCESS_DENIED;
        }
        // 501 Not Implemented is a missing feature, not a passing fault.
        if ((status >= 500 && status != 501) || status == 429 || (errorCode != null && RETRY_CODES.contains(errorCode))) {
            return Kind.RETRY;
        }
        return Kind.FATAL;
    }

    /** Strips the CompletionException / ExecutionException wrappers futures add. */
    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** A one-line account of a failure: {@code 503 SlowDown: Please reduce your request rate.}, or the I/O error. */
    static String describe(Throwable failure) {
        Throwable t = unwrap(failure);
        for (Throwable c = t; c != null; c = next(c)) {
            if (c instanceof SdkServiceException service) {
                String code = errorCode(service);
                String message = service instanceof AwsServiceException aws && aws.awsErrorDetails() != null
                        ? aws.awsErrorDetails().errorMessage() : null;
                return service.statusCode() + (code != null ? " " + code : "")
                        + (message != null && !message.isBlank() ? ": " + message : "");
            }
        }
        if (t instanceof BroadcastException || t instanceof TransientReadException) {
            return t.getMessage();
        }
        Throwable root = t;
        while (next(root) != null) {
            root = next(root);
        }
        String text = t.getClass().getSimpleName() + ": " + t.getMessage();
        return root == t ? text : text + " (caused by " + root + ")";
    }

    static String errorCode(SdkServiceException service) {
        if (service instanceof AwsServiceException aws && aws.awsErrorDetails() != null) {
            String code = aws.awsErrorDetails().errorCode();
            if (code != null && !code.isBlank()) {
                return code;
            }
        }
        return null;
    }

    /**
     * The error a caller sees for a failure that will not be retried (any more).
     *
     * @param what what was being read: {@code "HEAD"} or {@code "bytes a-b"}
     * @param attempts how many attempts were made; more than 1 only when retries ran out
     */
    static BroadcastException toBroadcastException(Kind kind, Throwable failure, String bucket, String key,
            String eTag, String what, int attempts) {
        Throwable cause = unwrap(failure);
        if (cause instanceof BroadcastException b) {
            return b;
        }
        String object = "s3://" + bucket + "/" + key;
        String why = describe(cause);
        switch (kind) {
            case OBJECT_CHANGED:
                return objectChanged(object, what, eTag, cause, null);
            case NOT_FOUND:
                String missing = isNoSuchBucket(cause) ? "bucket " + bucket + " does not exist" : object + " does not exist";
                return new BroadcastException.ObjectNotFound(missing + " (" + why + ", reading " + what + ")", cause);
            case ACCESS_DENIED:
                return new BroadcastException.AccessDenied("access to " + object + " was refused (" + why + ", reading "
                        + what + "): check credentials/region; the principal needs s3:GetObject on arn:aws:s3:::"
                        + bucket + "/" + key, cause);
            case RETRY:
                return new BroadcastException(what + " of " + object + " failed after " + attempts + " attempt"
                        + (attempts == 1 ? "" : "s") + ": " + why, cause);
            default:
                return new BroadcastException(what + " of " + object + " failed: " + why + " (not retried)", cause);
        }
    }

    /**
     * The error for a read pinned to {@code eTag} that S3 refused because the object changed.
     *
     * @param now what is known of the object now: {@code ETag "…"}, or why it could not be read; null to say nothing
     */
    static BroadcastException.ObjectChanged objectChanged(String object, String what, String eTag, Throwable cause,
            String now) {
        return new BroadcastException.ObjectChanged(object + " changed while it was being fetched: reading " + what
                + " with If-Match: " + eTag + " got " + describe(cause) + "; the object was replaced"
                + (now == null ? "" : " (" + now + ")") + ", fetch again to get the new version", cause);
    }

    static boolean isNoSuchBucket(Throwable failure) {
        for (Throwable c = unwrap(failure); c != null; c = next(c)) {
            if (c instanceof SdkServiceException service) {
                return "NoSuchBucket".equals(errorCode(service));
            }
        }
        return false;
    }

    private static boolean isTransportException(Throwable t) {
        String name = t.getClass().getName();
        return name.startsWith("io.netty.") || name.startsWith("software.amazon.awssdk.crt.");
    }

    private static Throwable next(Throwable t) {
        Throwable c = t.getCause();
        return c == t ? null : c;
    }
}
