package io.s3broadcast.internal;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads settings the user did not set in code: system property {@code s3broadcast.NAME} first, then
 * environment variable {@code S3BROADCAST_NAME} (upper case, camel case split by underscores). A value that
 * does not parse is an error naming the property, the value and the accepted form.
 */
final class ConfigSource {

    static final String PREFIX = "s3broadcast.";

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?i?b?)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?", Pattern.CASE_INSENSITIVE);

    private final Map<String, String> properties;
    private final Map<String, String> environment;

    ConfigSource(Map<String, String> properties, Map<String, String> environment) {
        this.properties = properties;
        this.environment = environment;
    }

    static ConfigSource system() {
        Map<String, String> props = new java.util.HashMap<>();
        System.getProperties().forEach((k, v) -> props.put(String.valueOf(k), String.valueOf(v)));
        return new ConfigSource(props, System.getenv());
    }

    /** {@code rangeSize} becomes {@code S3BROADCAST_RANGE_SIZE}. */
    static String envName(String name) {
        return "S3BROADCAST_" + name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    Optional<String> string(String name) {
        String v = properties.get(PREFIX + name);
        if (v == null || v.isBlank()) {
            v = environment.get(envName(name));
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    <T> Optional<T> parsed(String name, String form, Function<String, T> parser) {
        return string(name).map(v -> {
            try {
                return parser.apply(v);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("bad value '" + v + "' for " + PREFIX + name + " (or " + envName(name)
                        + "): expected " + form + (e.getMessage() == null ? "" : "; " + e.getMessage()), e);
            }
        });
    }

    Optional<Integer> positiveInt(String name) {
        return parsed(name, "a positive whole number", v -> {
            int n = Integer.parseInt(v);
            if (n <= 0) {
                throw new IllegalArgumentException("must be > 0");
            }
            return n;
        });
    }

    Optional<Long> size(String name) {
        return parsed(name, "a size such as 8388608, 8MiB or 512KiB", ConfigSource::parseSize);
    }

    Optional<Duration> duration(String name) {
        return parsed(name, "a duration such as 500ms, 30s, 2m or PT30S", ConfigSource::parseDuration);
    }

    Optional<Boolean> bool(String name) {
        return parsed(name, "true or false", v -> {
            if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(v);
            }
            throw new IllegalArgumentException((String) null);
        });
    }

    /** Bytes from {@code 123}, {@code 8MiB}, {@code 8MB}, {@code 8m}: binary multiples throughout. */
    static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + text);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2).toLowerCase(Locale.ROOT);
        long mult = switch (unit.isEmpty() ? ' ' : unit.charAt(0)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1L;
        };
        return Math.multiplyExact(n, mult);
    }

    static Duration parseDuration(String text) {
        String t = text.trim();
        if (t.toUpperCase(Locale.ROOT).startsWith("P")) {
            return Duration.parse(t);
        }
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }
}
