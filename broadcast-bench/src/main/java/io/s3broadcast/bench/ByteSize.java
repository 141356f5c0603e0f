package io.s3broadcast.bench;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Sizes as people write them on the command line: {@code 1GiB}, {@code 8MiB}, {@code 500MB}, {@code 1048576}. */
final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]*)");

    private ByteSize() {
    }

    /**
     * Parses a size. Binary units ({@code KiB MiB GiB TiB}, and the bare {@code K M G T} as in {@code -Xmx}) are
     * powers of 1024; decimal units ({@code kB MB GB TB}) powers of 1000; no unit or {@code B} means bytes.
     */
    static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size: write e.g. 1GiB, 256MiB, 500MB or 1048576");
        }
        long unit = switch (m.group(2)) {
            case "", "b" -> 1L;
            case "k", "kib" -> 1L << 10;
            case "m", "mib" -> 1L << 20;
            case "g", "gib" -> 1L << 30;
            case "t", "tib" -> 1L << 40;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            default -> throw new IllegalArgumentException("unknown unit '" + m.group(2) + "' in '" + text
                    + "': use B, KiB, MiB, GiB, TiB (powers of 1024) or kB, MB, GB, TB (powers of 1000)");
        };
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
        try {
            return bytes.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is too large", e);
        }
    }

    /** A short binary rendering: {@code 1 GiB}, {@code 8 MiB}, {@code 1.5 KiB}, {@code 17 B}. */
    static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        if (v == Math.rint(v)) {
            return (long) v + " " + units[u];
        }
        return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
    }

    /** Lets picocli options be declared as {@code long} sizes. */
    static final class Converter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
