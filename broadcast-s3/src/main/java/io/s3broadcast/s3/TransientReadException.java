package io.s3broadcast.s3;

import java.io.IOException;

/**
 * A ranged read that went wrong in a way another attempt can fix: the body stalled, ended early, or did not
 * cover the bytes asked for.
 */
final class TransientReadException extends IOException {

    private static final long serialVersionUID = 1L;

    TransientReadException(String message) {
        super(message);
    }
}
