package io.s3broadcast.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One emulated node's link: bytes per second it can receive ({@code down}, from S3 and peers together) and send
 * ({@code up}, to peers). 0 means unlimited.
 */
record FleetLink(long down, long up) {

    FleetLink {
        if (down < 0 || up < 0) {
            throw new IllegalArgumentException("link rates must not be negative");
        }
    }

    /** {@code 10MB} (both ways) or {@code 10MB/5MB} (down/up); sizes as {@link ByteSize#parse} reads them. */
    static FleetLink parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        if (slash < 0) {
            long r = rate(t);
            return new FleetLink(r, r);
        }
        return new FleetLink(rate(t.substring(0, slash)), rate(t.substring(slash + 1)));
    }

    private static long rate(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("/s")) {
            t = t.substring(0, t.length() - 2);
        }
        return t.equals("unlimited") || t.equals("0") ? 0 : ByteSize.parse(t);
    }

    /**
     * {@code --links}: comma-separated groups {@code COUNTxLINK}, e.g. {@code 6x10MB,2x2.5MB} or
     * {@code 4x10MB/5MB,4x20MB}; the counts must add up to {@code nodes}. Nodes get the groups in order.
     */
    static List<FleetLink> parseFleet(String spec, int nodes) {
        List<FleetLink> links = new ArrayList<>();
        for (String group : spec.split(",")) {
            String g = group.trim();
            int x = g.toLowerCase(Locale.ROOT).indexOf('x');
            if (x <= 0) {
                throw new IllegalArgumentException("'" + g + "' in --links is not COUNTxRATE[/UP], e.g. 6x10MB");
            }
            int count = Integer.parseInt(g.substring(0, x).trim());
            FleetLink link = parse(g.substring(x + 1));
            for (int i = 0; i < count; i++) {
                links.add(link);
            }
        }
        if (links.size() != nodes) {
            throw new IllegalArgumentException("--links '" + spec + "' describes " + links.size() + " nodes, but --nodes is "
                    + nodes);
        }
        return links;
    }

    /** The links of {@code nodes} nodes: {@code --links} ({@link #parseFleet}) when given, else {@code --link} for all. */
    static List<FleetLink> of(String links, String link, int nodes) {
        return links != null ? parseFleet(links, nodes) : java.util.Collections.nCopies(nodes, parse(link));
    }

    /** {@code 10 MB/s / 5 MB/s} for tables. */
    String describe() {
        return down == up ? mb(down) : mb(down) + "/" + mb(up);
    }

    private static String mb(long r) {
        return r == 0 ? "unlimited" : String.format(Locale.ROOT, "%.4gMB", r / 1e6).replaceAll("\\.?0+MB$", "MB");
    }
}
