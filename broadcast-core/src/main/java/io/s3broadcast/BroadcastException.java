package io.s3broadcast;

/**
 * Why a fetch failed. The message names the object and says what to do about it; subclasses mark the
 * causes a caller may want to handle on their own.
 */
public class BroadcastException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BroadcastException(String message) {
        super(message);
    }

    public BroadcastException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The bucket or key does not exist. */
    public static final class ObjectNotFound extends BroadcastException {
        private static final long serialVersionUID = 1L;

        public ObjectNotFound(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** S3 refused the credentials or the request (403, invalid key id, bad signature). */
    public static final class AccessDenied extends BroadcastException {
        private static final long serialVersionUID = 1L;

        public AccessDenied(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The object was replaced while it was being fetched (its ETag changed). */
    public static final class ObjectChanged extends BroadcastException {
        private static final long serialVersionUID = 1L;

        public ObjectChanged(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Bytes on disk do not match S3's checksum or a piece's CRC32C. */
    public static final class ChecksumMismatch extends BroadcastException {
        private static final long serialVersionUID = 1L;

        public ChecksumMismatch(String message) {
            super(message);
        }
    }

    /** The destination cannot take the object: not writable, not a directory, or not enough space. */
    public static final class DestinationUnusable extends BroadcastException {
        private static final long serialVersionUID = 1L;

        public DestinationUnusable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
