package io.s3broadcast.p2p.protocol;

import io.netty.handler.codec.DecoderException;

/**
 * A peer broke the wire protocol: a frame over the limit, an unknown message type, a field out of range, a
 * message in the wrong place. The connection cannot be trusted after one, so the handler that detects it fires
 * it down the pipeline and closes the channel.
 */
public class ProtocolException extends DecoderException {

    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }

    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
