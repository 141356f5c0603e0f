package io.s3broadcast.registry;

import io.s3broadcast.BroadcastException;

/** A registry could not be reached, or refused to record or list this node; the message says which registry. */
public class RegistryException extends BroadcastException {

    private static final long serialVersionUID = 1L;

    public RegistryException(String message) {
        super(message);
    }

    public RegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
