package io.s3broadcast.registry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a shared registry stores for one member: a small JSON object such as
 * {@code {"v":1,"nodeId":"n1","host":"10.0.0.5","port":7000,"joinedAt":"2025-01-01T00:00:00Z"}}.
 * {@link #parse} ignores fields it does not know, so later versions may add some. A member whose broadcast has begun
 * (its membership fixed, {@link NodeRegistry#markBegun()}) adds {@code "begun":true}.
 *
 * @param node the member
 * @param joinedAt when it registered, by its own clock
 * @param begun whether its broadcast has begun
 */
public record NodeEntry(NodeInfo node, Instant joinedAt, boolean begun) {

    public NodeEntry {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(joinedAt, "joinedAt");
    }

    /** A member whose broadcast has not begun. */
    public NodeEntry(NodeInfo node, Instant joinedAt) {
        this(node, joinedAt, false);
    }

    /** This entry with its broadcast begun. */
    public NodeEntry withBegun() {
        return begun ? this : new NodeEntry(node, joinedAt, true);
    }

    /** The entry as UTF-8 JSON. */
    public byte[] toJson() {
        StringBuilder json = new StringBuilder(128).append("{\"v\":1,\"nodeId\":");
        quote(json, node.nodeId()).append(",\"host\":");
        quote(json, node.host()).append(",\"port\":").append(node.port()).append(",\"joinedAt\":");
        quote(json, joinedAt.toString());
        if (begun) {
            json.append(",\"begun\":true");
        }
        json.append('}');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads an entry written by {@link #toJson()}.
     *
     * @throws IllegalArgumentException if it is not such an object
     */
    public static NodeEntry parse(byte[] json) {
        String text = new String(json, StandardCharsets.UTF_8);
        Map<String, String> fields = new FlatJson(text).object();
        try {
            NodeInfo node = new NodeInfo(require(fields, "nodeId", text), require(fields, "host", text),
                    Integer.parseInt(require(fields, "port", text)));
            return new NodeEntry(node, Instant.parse(require(fields, "joinedAt", text)), "true".equals(fields.get("begun")));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("not a node entry: " + text, e);
        }
    }

    private static String require(Map<String, String> fields, String name, String text) {
        String value = fields.get(name);
        if (value == null) {
            throw new IllegalArgumentException("node entry has no " + name + ": " + text);
        }
        return value;
    }

    private static StringBuilder quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /** Reads one JSON object whose values are strings, numbers, booleans or null; values come back as text. */
    private static final class FlatJson {
        private final String s;
        private int i;

        FlatJson(String s) {
            this.s = s;
        }

        Map<String, String> object() {
            Map<String, String> fields = new HashMap<>();
            skipSpace();
            expect('{');
            skipSpace();
            if (peek() == '}') {
                i++;
            } else {
                while (true) {
                    skipSpace();
                    String name = string();
                    skipSpace();
                    expect(':');
                    skipSpace();
                    fields.put(name, value());
                    skipSpace();
                    char c = next();
                    if (c == '}') {
                        break;
                    }
                    if (c != ',') {
                        throw fail("',' or '}'");
                    }
                }
            }
            skipSpace();
            if (i != s.length()) {
                throw fail("end of input");
            }
            return fields;
        }

        private String value() {
            char c = peek();
            if (c == '"') {
                return string();
            }
            int start = i;
            while (i < s.length() && "+-.0123456789eEtruefalsn".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw fail("a string, number, boolean or null");
            }
            return s.substring(start, i);
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw fail("four hex digits");
                        }
                        try {
                            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw fail("four hex digits");
                        }
                        i += 4;
                    }
                    default -> throw fail("an escape");
                }
            }
        }

        private void skipSpace() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw fail("more input");
            }
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) {
                i--;
                throw fail("'" + c + "'");
            }
        }

        private IllegalArgumentException fail(String expected) {
            return new IllegalArgumentException("not a node entry: expected " + expected + " at offset " + i + " of: " + s);
        }
    }
}
