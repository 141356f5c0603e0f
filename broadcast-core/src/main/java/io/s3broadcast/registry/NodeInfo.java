package io.s3broadcast.registry;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One member of a broadcast group: a stable id and the address its peers connect to.
 *
 * <p>Ids are used as S3 key and ZooKeeper znode names, so they are limited to 1 to 128 characters from
 * {@code [A-Za-z0-9._:-]} and may not start with a dot. {@link #idFor(String, int)} makes one from an address.
 *
 * @param nodeId unique within the group
 * @param host advertised host name or IP literal (IPv6 without brackets)
 * @param port advertised TCP port, 1 to 65535
 */
public record NodeInfo(String nodeId, String host, int port) {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,127}");

    public NodeInfo {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(host, "host");
        if (!ID.matcher(nodeId).matches()) {
            throw new IllegalArgumentException("node id '" + nodeId
                    + "' is not 1 to 128 characters of [A-Za-z0-9._:-] not starting with '.'");
        }
        if (host.isBlank() || host.chars().anyMatch(c -> c <= ' ' || c == '/')) {
            throw new IllegalArgumentException("host '" + host + "' of node " + nodeId + " is empty or has a space or '/'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port of node " + nodeId + " must be 1 to 65535, was " + port);
        }
    }

    /** A node whose id is its address, {@code host:port} with other characters replaced by {@code _}. */
    public static NodeInfo of(String host, int port) {
        return new NodeInfo(idFor(host, port), host, port);
    }

    /** {@code host:port} as a valid node id: characters outside {@code [A-Za-z0-9._:-]} become {@code _}. */
    public static String idFor(String host, int port) {
        String suffix = ":" + port;
        StringBuilder id = new StringBuilder(host.length() + suffix.length());
        for (int i = 0; i < host.length() && i < 128 - suffix.length(); i++) {
            char c = host.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == ':' || c == '-';
            id.append(ok ? c : '_');
        }
        if (id.length() > 0 && id.charAt(0) == '.') {
            id.setCharAt(0, '_');
        }
        return id.append(suffix).toString();
    }

    /** {@code host:port}, with brackets around an IPv6 literal. */
    public String address() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    @Override
    public String toString() {
        return nodeId + "@" + address();
    }
}
