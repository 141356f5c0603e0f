package io.s3broadcast.s3.registry;

import io.s3broadcast.registry.NodeEntry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One shard of a group's member list as stored in S3: a version counter, then one line per member with its lease
 * end and its {@link NodeEntry}:
 *
 * <pre>
 * s3broadcast-registry 1 42
 * 2025-01-01T00:00:35Z {"v":1,"nodeId":"n1","host":"10.0.0.5","port":7000,"joinedAt":"2025-01-01T00:00:00Z"}
 * </pre>
 *
 * The version goes up by one on every write, so readers never need the ETag to be a digest of the content (with
 * SSE-KMS it is not). Immutable; lines that do not parse are dropped by {@link #parse} (and so by the next write).
 */
record Manifest(long version, Map<String, Lease> entries) {

    static final String MAGIC = "s3broadcast-registry 1";
    static final Manifest EMPTY = new Manifest(0, Map.of());

    /** One member and the end of its lease, by its own clock. */
    record Lease(NodeEntry entry, Instant until) {
        Lease {
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(until, "until");
        }
    }

    Manifest {
        entries = Collections.unmodifiableMap(new TreeMap<>(entries));
    }

    /** This manifest with {@code lease} added or replacing the one of its node, and the version moved on. */
    Manifest with(Lease lease) {
        TreeMap<String, Lease> next = new TreeMap<>(entries);
        next.put(lease.entry().node().nodeId(), lease);
        return new Manifest(version + 1, next);
    }

    /** This manifest without {@code nodeId}, and the version moved on. */
    Manifest without(String nodeId) {
        TreeMap<String, Lease> next = new TreeMap<>(entries);
        next.remove(nodeId);
        return new Manifest(version + 1, next);
    }

    /** This manifest without the leases that ended before {@code cutoff} (the version is not moved). */
    Manifest purgedBefore(Instant cutoff) {
        TreeMap<String, Lease> next = new TreeMap<>(entries);
        next.values().removeIf(l -> l.until().isBefore(cutoff));
        return next.size() == entries.size() ? this : new Manifest(version, next);
    }

    byte[] toBytes() {
        StringBuilder out = new StringBuilder(64 + 160 * entries.size());
        out.append(MAGIC).append(' ').append(version).append('\n');
        for (Lease l : entries.values()) {
            out.append(l.until()).append(' ').append(new String(l.entry().toJson(), StandardCharsets.UTF_8)).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a manifest written by {@link #toBytes()}; member lines that do not parse are skipped.
     *
     * @throws IllegalArgumentException if the header is not a manifest's
     */
    static Manifest parse(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        String[] lines = text.split("\n");
        String header = lines.length == 0 ? "" : lines[0];
        if (!header.startsWith(MAGIC + " ")) {
            throw new IllegalArgumentException("not a registry manifest (header '" + abbreviate(header) + "')");
        }
        long version;
        try {
            version = Long.parseLong(header.substring(MAGIC.length() + 1).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a registry manifest (header '" + abbreviate(header) + "')", e);
        }
        TreeMap<String, Lease> entries = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int space = line.indexOf(' ');
            if (space <= 0) {
                continue;
            }
            try {
                Instant until = Instant.parse(line.substring(0, space));
                NodeEntry entry = NodeEntry.parse(line.substring(space + 1).getBytes(StandardCharsets.UTF_8));
                entries.put(entry.node().nodeId(), new Lease(entry, until));
            } catch (DateTimeParseException | IllegalArgumentException e) {
                // A damaged line: skipped here, gone after the next write.
            }
        }
        return new Manifest(version, entries);
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
