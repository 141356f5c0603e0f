package io.s3broadcast.bench;

import io.s3broadcast.Strategy;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters for the values the cluster commands take: durations, strategies, {@code host:port}. */
final class Converters {

    private Converters() {
    }

    /**
     * {@code 250us}, {@code 1.5ms}, {@code 30s}, {@code 2m}, {@code 1h}: a decimal number with ns, us, ms, s, m or h
     * (bare: seconds), or ISO-8601 {@code PT30S}. Rounded to the nanosecond.
     */
    static final class DurationConverter implements ITypeConverter<Duration> {
        private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*(ns|us|ms|s|m|h)?");

        @Override
        public Duration convert(String value) {
            String t = value.trim();
            if (t.toUpperCase(Locale.ROOT).startsWith("P")) {
                try {
                    return Duration.parse(t);
                } catch (RuntimeException e) {
                    throw new TypeConversionException("'" + value + "' is not an ISO-8601 duration");
                }
            }
            Matcher m = DURATION.matcher(t.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new TypeConversionException("'" + value + "' is not a duration: write e.g. 250us, 1.5ms, 30s, 2m"
                        + " or PT30S");
            }
            long unitNanos = switch (m.group(2) == null ? "s" : m.group(2)) {
                case "ns" -> 1L;
                case "us" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> 1_000_000_000L;
            };
            try {
                return Duration.ofNanos(nanos(m.group(1), unitNanos));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is too long a duration");
            }
        }
    }

    /** Most fraction digits {@link DurationConverter#nanos} multiplies in a {@code long}: 10^6 x 3.6 10^12 fits. */
    private static final int LONG_FRACTION_DIGITS = 6;

    /**
     * {@code number} (digits, at most one dot) times {@code unitNanos}, rounded half up. In {@code long}s for up to
     * {@link #LONG_FRACTION_DIGITS} digits after the dot (every default and anything typed by hand): {@code
     * BigDecimal}'s class initialisation alone took ~25 ms of a fresh node JVM's CPU, there only to read "30s".
     */
    static long nanos(String number, long unitNanos) {
        int dot = number.indexOf('.');
        String whole = dot < 0 ? number : number.substring(0, dot);
        String fraction = dot < 0 ? "" : number.substring(dot + 1);
        if (fraction.length() > LONG_FRACTION_DIGITS) {
            return new BigDecimal(number).multiply(BigDecimal.valueOf(unitNanos)).setScale(0, RoundingMode.HALF_UP)
                    .longValueExact();
        }
        long nanos = Math.multiplyExact(whole.isEmpty() ? 0 : Long.parseLong(whole), unitNanos);
        if (fraction.isEmpty()) {
            return nanos;
        }
        long scale = 1;
        for (int i = 0; i < fraction.length(); i++) {
            scale *= 10;
        }
        return Math.addExact(nanos, (Long.parseLong(fraction) * unitNanos + scale / 2) / scale);
    }

    /** {@code flat}, {@code flat-tree}, {@code non-steal}, {@code steal}, {@code overlap}, any case. */
    static final class StrategyConverter implements ITypeConverter<Strategy> {
        @Override
        public Strategy convert(String value) {
            try {
                return Strategy.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code host:port}, {@code [v6]:port}, or {@code :port} for every interface. */
    static final class HostPortConverter implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            int colon = value.lastIndexOf(':');
            if (colon < 0) {
                throw new TypeConversionException("'" + value + "' has no port: write host:port, e.g. 0.0.0.0:7070");
            }
            String host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' has no numeric port");
            }
            if (port < 0 || port > 65535) {
                throw new TypeConversionException("port " + port + " is outside 0-65535");
            }
            return new InetSocketAddress(host.isEmpty() ? "0.0.0.0" : host, port);
        }
    }

    /** Lower-case, dashed name as users write it: {@code non-steal}, {@code flat-tree}. */
    static String name(Strategy strategy) {
        return strategy.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
