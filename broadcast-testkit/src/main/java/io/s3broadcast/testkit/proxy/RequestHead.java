package io.s3broadcast.testkit.proxy;

import java.util.List;
import java.util.Optional;

/**
 * The head of one HTTP request as the proxy saw it: what a {@link Rule} matches on.
 *
 * <p>Values are as on the wire; the path is not percent-decoded.
 */
public final class RequestHead {
  private final String method;
  private final String target;
  private final String version;
  private final Headers headers;

  RequestHead(String method, String target, String version, Headers headers) {
    this.method = method;
    this.target = target;
    this.version = version;
    this.headers = headers;
  }

  /** The method, e.g. {@code GET}. */
  public String method() {
    return method;
  }

  /** The request-target as sent, e.g. {@code /bucket/key?partNumber=1}. */
  public String target() {
    return target;
  }

  /** The request-target up to, not including, the first {@code ?}. */
  public String path() {
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }

  /** The query string without the {@code ?}, or empty. */
  public String query() {
    int q = target.indexOf('?');
    return q < 0 ? "" : target.substring(q + 1);
  }

  /** The HTTP version, e.g. {@code HTTP/1.1}. */
  public String version() {
    return version;
  }

  /** The first value of the header field {@code name} (case-insensitive). */
  public Optional<String> header(String name) {
    return headers.first(name);
  }

  /** All values of the header field {@code name} (case-insensitive), in wire order. */
  public List<String> headers(String name) {
    return headers.all(name);
  }

  /** The {@code Range} header, e.g. {@code bytes=0-1023}. */
  public Optional<String> range() {
    return headers.first("Range");
  }

  boolean expectsContinue() {
    return headers.tokens("Expect").contains("100-continue");
  }

  /** Whether the connection ends after this exchange, by header or by HTTP/1.0 default. */
  boolean closesConnection() {
    List<String> connection = headers.tokens("Connection");
    if (connection.contains("close")) {
      return true;
    }
    return "HTTP/1.0".equals(version) && !connection.contains("keep-alive");
  }

  Headers fields() {
    return headers;
  }

  @Override
  public String toString() {
    return method + " " + target;
  }
}
