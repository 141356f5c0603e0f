package io.s3broadcast.testkit.proxy;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing and printing of byte rates and durations in the proxy's specs: {@code 10MB}, {@code 2.5MiB/s}, {@code 30ms}. */
final class Rates {
  private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]*)(?:/s)?");
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s)?");

  private Rates() {}

  /**
   * Bytes per second from {@code 10MB} (10^6), {@code 8MiB} (2^20), {@code 500kB}, {@code 1GB}, with an optional
   * {@code /s}; a bare number is bytes per second.
   */
  static long parseRate(String text) {
    Matcher m = RATE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a rate: write e.g. 10MB (10^6 bytes/s), 8MiB (2^20 bytes/s) or 1048576");
    }
    long unit =
        switch (m.group(2)) {
          case "", "b" -> 1L;
          case "k", "kib" -> 1L << 10;
          case "m", "mib" -> 1L << 20;
          case "g", "gib" -> 1L << 30;
          case "kb" -> 1_000L;
          case "mb" -> 1_000_000L;
          case "gb" -> 1_000_000_000L;
          default -> throw new IllegalArgumentException(
              "unknown unit '" + m.group(2) + "' in '" + text + "': use B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB");
        };
    return new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).longValue();
  }

  /** Nanoseconds from {@code 30ms}, {@code 1.5s}, {@code 200us}; a bare number is milliseconds. */
  static long parseNanos(String text) {
    Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration: write e.g. 30ms, 1.5s or 200us");
    }
    long unit =
        switch (m.group(2) == null ? "ms" : m.group(2)) {
          case "ns" -> 1L;
          case "us" -> 1_000L;
          case "s" -> 1_000_000_000L;
          default -> 1_000_000L;
        };
    return new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).longValue();
  }

  /** {@code 12.5MB} (decimal megabytes per second, as the paper writes them). */
  static String formatRate(double bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      return "unlimited";
    }
    return trim(String.format(Locale.ROOT, "%.3f", bytesPerSecond / 1e6)) + "MB";
  }

  static String formatNanos(double nanos) {
    return trim(String.format(Locale.ROOT, "%.3f", nanos / 1e6)) + "ms";
  }

  private static String trim(String decimal) {
    return decimal.contains(".") ? decimal.replaceAll("0+$", "").replaceAll("\\.$", "") : decimal;
  }
}
