package io.s3broadcast.testkit.proxy;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link Rule} does to a request it claims. Immutable; build with the static factories.
 *
 * <p>Body offsets count the response bytes after the head as they are on the wire, so for a
 * chunked response they include the chunk-size lines. A body fault whose offset is at or past the
 * end of the body is not injected (the response passes whole) and is not counted. A stall in the
 * response head ({@link #stallInHead}) always strikes, before the head's last byte.
 */
public final class Fault {
  private final FaultKind kind;
  private final int status;
  private final String errorCode;
  private final String message;
  private final long afterBodyBytes;
  private final int afterHeadBytes;
  private final Duration stall;

  private Fault(
      FaultKind kind, int status, String errorCode, String message, long afterBodyBytes, Duration stall) {
    this(kind, status, errorCode, message, afterBodyBytes, -1, stall);
  }

  private Fault(
      FaultKind kind,
      int status,
      String errorCode,
      String message,
      long afterBodyBytes,
      int afterHeadBytes,
      Duration stall) {
    this.kind = kind;
    this.status = status;
    this.errorCode = errorCode;
    this.message = message;
    this.afterBodyBytes = afterBodyBytes;
    this.afterHeadBytes = afterHeadBytes;
    this.stall = stall;
  }

  /** 503 with S3 error code {@code SlowDown}, as S3 answers when throttling a prefix. */
  public static Fault slowDown() {
    return status(503, "SlowDown", "Please reduce your request rate.");
  }

  /** 500 with S3 error code {@code InternalError}. */
  public static Fault internalError() {
    return status(500, "InternalError", "We encountered an internal error. Please try again.");
  }

  /**
   * An error response made by the proxy, with an S3-style XML body {@code <Error><Code>...}; the
   * request is not forwarded (its body, if any, is read and dropped).
   */
  public static Fault status(int status, String errorCode, String message) {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("status must be a final status 200..599: " + status);
    }
    return new Fault(
        FaultKind.STATUS, status, Objects.requireNonNull(errorCode), Objects.requireNonNull(message), -1, null);
  }

  /** Forwards the response head and {@code bodyBytes} body bytes, then resets the connection (RST). */
  public static Fault resetAfter(long bodyBytes) {
    return new Fault(FaultKind.RESET, 0, null, null, checkOffset(bodyBytes), null);
  }

  /**
   * Forwards the response head (with its full Content-Length) and {@code bodyBytes} body bytes,
   * then closes the connection cleanly (FIN): the client sees a premature end of stream.
   */
  public static Fault truncateAfter(long bodyBytes) {
    return new Fault(FaultKind.TRUNCATE, 0, null, null, checkOffset(bodyBytes), null);
  }

  /**
   * Forwards the response head and {@code bodyBytes} body bytes, then forwards nothing for {@code
   * duration} (or until {@link Rule#release()}), then the rest; the connection stays open.
   */
  public static Fault stallAfter(long bodyBytes, Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("negative stall " + duration);
    }
    return new Fault(FaultKind.STALL, 0, null, null, checkOffset(bodyBytes), duration);
  }

  /** Like {@link #stallAfter(long, Duration)} but stalls until {@link Rule#release()} or proxy close. */
  public static Fault stallAfter(long bodyBytes) {
    return new Fault(FaultKind.STALL, 0, null, null, checkOffset(bodyBytes), null);
  }

  /**
   * Forwards {@code headBytes} bytes of the response head (status line and headers; at most all but
   * its last byte), then nothing until {@link Rule#release()} or proxy close, then the rest: a
   * response that stalls before the client has its headers, as for a HEAD, which has no body.
   */
  public static Fault stallInHead(int headBytes) {
    return new Fault(FaultKind.STALL, 0, null, null, -1, (int) checkOffset(headBytes), null);
  }

  /**
   * Like {@link #stallInHead(int)} but for {@code duration} at most (or until {@link Rule#release()}):
   * with {@code headBytes} 0, a slow first byte of the response.
   */
  public static Fault stallInHead(int headBytes, Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("negative stall " + duration);
    }
    return new Fault(FaultKind.STALL, 0, null, null, -1, (int) checkOffset(headBytes), duration);
  }

  private static long checkOffset(long bodyBytes) {
    if (bodyBytes < 0) {
      throw new IllegalArgumentException("negative body offset " + bodyBytes);
    }
    return bodyBytes;
  }

  public FaultKind kind() {
    return kind;
  }

  /** The HTTP status of a {@link FaultKind#STATUS} fault, else 0. */
  public int status() {
    return status;
  }

  /** The S3 error code of a {@link FaultKind#STATUS} fault, else null. */
  public String errorCode() {
    return errorCode;
  }

  String message() {
    return message;
  }

  /** The body offset at which a body fault strikes; -1 for {@link FaultKind#STATUS} and a stall in the head. */
  public long afterBodyBytes() {
    return afterBodyBytes;
  }

  /** The offset in the response head at which a {@link #stallInHead} stall strikes, else -1. */
  public int afterHeadBytes() {
    return afterHeadBytes;
  }

  /** How long a stall lasts; empty means until released. */
  public Optional<Duration> stallDuration() {
    return Optional.ofNullable(stall);
  }

  @Override
  public String toString() {
    switch (kind) {
      case STATUS:
        return "status " + status + " " + errorCode;
      case STALL:
        if (afterHeadBytes >= 0) {
          return "stall after " + afterHeadBytes + " head bytes " + (stall == null ? "until released" : "for " + stall);
        }
        return "stall after " + afterBodyBytes + " body bytes for " + (stall == null ? "ever" : stall);
      default:
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " after " + afterBodyBytes + " body bytes";
    }
  }
}
