package io.s3broadcast.testkit.proxy;

import java.io.IOException;

/** A peer sent bytes that are not the HTTP/1.1 the proxy understands; the connection is closed. */
final class HttpProtocolException extends IOException {
  HttpProtocolException(String message) {
    super(message);
  }
}
