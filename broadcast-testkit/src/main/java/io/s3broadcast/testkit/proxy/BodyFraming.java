package io.s3broadcast.testkit.proxy;

import java.util.List;
import java.util.Optional;

/** How the body of one message is delimited (RFC 9112 section 6.3). */
record BodyFraming(Kind kind, long length) {
  enum Kind {
    /** No body. */
    NONE,
    /** Exactly {@code length} bytes. */
    FIXED,
    /** Chunked transfer coding, ending with the zero-size chunk and trailers. */
    CHUNKED,
    /** Everything until the sender closes the connection (responses only). */
    UNTIL_CLOSE
  }

  static final BodyFraming NONE = new BodyFraming(Kind.NONE, 0);
  static final BodyFraming CHUNKED = new BodyFraming(Kind.CHUNKED, -1);
  static final BodyFraming UNTIL_CLOSE = new BodyFraming(Kind.UNTIL_CLOSE, -1);

  static BodyFraming fixed(long length) {
    return length == 0 ? NONE : new BodyFraming(Kind.FIXED, length);
  }

  static BodyFraming forRequest(RequestHead head) throws HttpProtocolException {
    List<String> codings = head.fields().tokens("Transfer-Encoding");
    if (!codings.isEmpty()) {
      if (!codings.get(codings.size() - 1).equals("chunked")) {
        throw new HttpProtocolException("request transfer coding is not chunked: " + codings);
      }
      return CHUNKED;
    }
    return contentLength(head.fields()).map(BodyFraming::fixed).orElse(NONE);
  }

  static BodyFraming forResponse(String requestMethod, ResponseHead head) throws HttpProtocolException {
    int status = head.status();
    if ("HEAD".equals(requestMethod) || head.isInterim() || status == 204 || status == 304) {
      return NONE;
    }
    List<String> codings = head.headers().tokens("Transfer-Encoding");
    if (!codings.isEmpty()) {
      return codings.get(codings.size() - 1).equals("chunked") ? CHUNKED : UNTIL_CLOSE;
    }
    return contentLength(head.headers()).map(BodyFraming::fixed).orElse(UNTIL_CLOSE);
  }

  private static Optional<Long> contentLength(Headers headers) throws HttpProtocolException {
    Long length = null;
    for (String value : headers.all("Content-Length")) {
      for (String part : value.split(",")) {
        long parsed = parseLength(part.trim());
        if (length != null && length != parsed) {
          throw new HttpProtocolException("conflicting Content-Length values");
        }
        length = parsed;
      }
    }
    return Optional.ofNullable(length);
  }

  private static long parseLength(String s) throws HttpProtocolException {
    if (s.isEmpty() || s.length() > 18) {
      throw new HttpProtocolException("bad Content-Length: " + s);
    }
    long v = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        throw new HttpProtocolException("bad Content-Length: " + s);
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
