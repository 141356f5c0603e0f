package io.s3broadcast.registry;

import com.google.common.net.HostAndPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which registry to use, as given on a command line. Accepted forms:
 * <ul>
 *   <li>{@code static:host:port[,host:port...]}: a fixed list of nodes ({@link StaticRegistry}); {@code static:}
 *       alone reads the list from the system property {@value StaticRegistry#MEMBERS_PROPERTY};</li>
 *   <li>{@code s3://bucket/prefix}: one small object per node under {@code prefix} in {@code bucket}
 *       (module {@code broadcast-s3}); the prefix may be empty;</li>
 *   <li>{@code zk://host:port[,host:port...]/path}: ephemeral znodes under {@code path} (module
 *       {@code broadcast-zookeeper}); the port defaults to 2181 and the path to {@value #DEFAULT_ZK_PATH}.</li>
 * </ul>
 * Any other {@code scheme://...} parses as {@link Other}, for a third-party {@link NodeRegistryProvider}.
 * {@link #toString()} gives the canonical spec.
 */
public sealed interface RegistrySpec permits RegistrySpec.Static, RegistrySpec.S3Prefix, RegistrySpec.ZooKeeper,
        RegistrySpec.Other {

    /** The forms {@link #parse} accepts, for error messages and help text. */
    String ACCEPTED_FORMS = "static:host:port[,host:port...], s3://bucket/prefix, zk://host:port[,host:port...]/path";

    /** The znode path a {@code zk://} spec without a path uses. */
    String DEFAULT_ZK_PATH = "/s3-broadcast";

    /** The lower-case scheme that picks the {@link NodeRegistryProvider}: {@code static}, {@code s3}, {@code zk}, ... */
    String scheme();

    /**
     * Parses a spec.
     *
     * @throws IllegalArgumentException naming the spec, what is wrong with it and the accepted forms
     */
    static RegistrySpec parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String s = spec.strip();
        int colon = s.indexOf(':');
        if (colon <= 0) {
            throw Parsing.bad(spec, "it has no scheme");
        }
        String scheme = s.substring(0, colon).toLowerCase(Locale.ROOT);
        String rest = s.substring(colon + 1);
        if (scheme.equals("static")) {
            return Parsing.staticList(spec, rest);
        }
        if (!rest.startsWith("//")) {
            if (!rest.isEmpty() && Character.isDigit(rest.charAt(0))) {
                throw Parsing.bad(spec, "it has no scheme (is this a host:port? write zk://" + s + "/path or static:" + s + ")");
            }
            throw Parsing.bad(spec, "scheme '" + scheme + "' must be followed by '//'");
        }
        String authorityAndPath = rest.substring(2);
        switch (scheme) {
            case "s3":
                return Parsing.s3(spec, authorityAndPath);
            case "zk":
                return Parsing.zk(spec, authorityAndPath);
            default:
                if (!Parsing.SCHEME.matcher(scheme).matches()) {
                    throw Parsing.bad(spec, "'" + scheme + "' is not a scheme");
                }
                return new Other(scheme, authorityAndPath);
        }
    }

    /**
     * A fixed list of nodes; each one's id is {@link NodeInfo#idFor its address}. An empty list means "read the
     * list from the system property {@value StaticRegistry#MEMBERS_PROPERTY}".
     */
    record Static(List<NodeInfo> members) implements RegistrySpec {
        public Static {
            members = List.copyOf(members);
        }

        @Override
        public String scheme() {
            return "static";
        }

        @Override
        public String toString() {
            return "static:" + members.stream().map(NodeInfo::address).collect(Collectors.joining(","));
        }
    }

    /**
     * An S3 prefix under which each node writes one object.
     *
     * @param prefix without leading or trailing {@code /}; may be empty
     */
    record S3Prefix(String bucket, String prefix) implements RegistrySpec {
        public S3Prefix {
            Objects.requireNonNull(bucket, "bucket");
            Objects.requireNonNull(prefix, "prefix");
        }

        @Override
        public String scheme() {
            return "s3";
        }

        @Override
        public String toString() {
            return "s3://" + bucket + "/" + prefix;
        }
    }

    /**
     * A ZooKeeper ensemble and the path under which groups live.
     *
     * @param connectString {@code host:port[,host:port...]}, as ZooKeeper clients take it
     * @param path absolute, without a trailing {@code /}
     */
    record ZooKeeper(String connectString, String path) implements RegistrySpec {
        public ZooKeeper {
            Objects.requireNonNull(connectString, "connectString");
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String scheme() {
            return "zk";
        }

        @Override
        public String toString() {
            return "zk://" + connectString + path;
        }
    }

    /** A {@code scheme://rest} for a registry this library does not know; a provider may. */
    record Other(String scheme, String rest) implements RegistrySpec {
        public Other {
            Objects.requireNonNull(scheme, "scheme");
            Objects.requireNonNull(rest, "rest");
        }

        @Override
        public String toString() {
            return scheme + "://" + rest;
        }
    }
}

/** The parsing rules behind {@link RegistrySpec#parse}. */
final class Parsing {

    static final Pattern SCHEME = Pattern.compile("[a-z][a-z0-9+.-]*");
    private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");
    private static final int ZK_DEFAULT_PORT = 2181;

    private Parsing() {
    }

    static IllegalArgumentException bad(String spec, String why) {
        return new IllegalArgumentException("bad registry spec '" + spec + "': " + why + "; accepted forms: "
                + RegistrySpec.ACCEPTED_FORMS);
    }

    static RegistrySpec.Static staticList(String spec, String rest) {
        List<NodeInfo> members = new ArrayList<>();
        if (rest.isBlank()) {
            return new RegistrySpec.Static(members);
        }
        for (String entry : rest.split(",", -1)) {
            HostAndPort hp = hostAndPort(spec, entry.strip(), -1);
            NodeInfo node = NodeInfo.of(hp.getHost(), hp.getPort());
            if (members.contains(node)) {
                throw bad(spec, "'" + entry.strip() + "' is listed twice");
            }
            members.add(node);
        }
        return new RegistrySpec.Static(members);
    }

    static RegistrySpec.S3Prefix s3(String spec, String authorityAndPath) {
        int slash = authorityAndPath.indexOf('/');
        String bucket = slash < 0 ? authorityAndPath : authorityAndPath.substring(0, slash);
        String prefix = slash < 0 ? "" : authorityAndPath.substring(slash + 1);
        if (bucket.isEmpty()) {
            throw bad(spec, "the bucket is missing");
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw bad(spec, "'" + bucket + "' is not a bucket name");
        }
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (prefix.startsWith("/") || prefix.contains("//")) {
            throw bad(spec, "the prefix '" + prefix + "' has an empty path segment");
        }
        if (prefix.chars().anyMatch(c -> c < ' ' || c == 0x7f)) {
            throw bad(spec, "the prefix has a control character");
        }
        return new RegistrySpec.S3Prefix(bucket, prefix);
    }

    static RegistrySpec.ZooKeeper zk(String spec, String authorityAndPath) {
        int slash = authorityAndPath.indexOf('/');
        String hosts = slash < 0 ? authorityAndPath : authorityAndPath.substring(0, slash);
        String path = slash < 0 ? "" : authorityAndPath.substring(slash);
        if (hosts.isEmpty()) {
            throw bad(spec, "no ZooKeeper server is given");
        }
        List<String> servers = new ArrayList<>();
        for (String entry : hosts.split(",", -1)) {
            HostAndPort hp = hostAndPort(spec, entry.strip(), ZK_DEFAULT_PORT);
            servers.add(hp.toString());
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.isEmpty()) {
            path = RegistrySpec.DEFAULT_ZK_PATH;
        }
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw bad(spec, "the path '" + path + "' has an empty, '.' or '..' segment");
            }
            if (segment.chars().anyMatch(c -> c < ' ' || c == 0x7f)) {
                throw bad(spec, "the path has a control character");
            }
        }
        return new RegistrySpec.ZooKeeper(String.join(",", servers), path);
    }

    private static HostAndPort hostAndPort(String spec, String entry, int defaultPort) {
        if (entry.isEmpty()) {
            throw bad(spec, "it has an empty host:port entry");
        }
        HostAndPort hp;
        try {
            hp = HostAndPort.fromString(entry);
        } catch (IllegalArgumentException e) {
            throw bad(spec, "'" + entry + "' is not host:port (" + e.getMessage() + ")");
        }
        if (!hp.hasPort()) {
            if (defaultPort < 0) {
                throw bad(spec, "'" + entry + "' has no port (IPv6 literals go in brackets: [::1]:7000)");
            }
            hp = hp.withDefaultPort(defaultPort);
        }
        if (hp.getPort() < 1) {
            throw bad(spec, "'" + entry + "' has port 0");
        }
        String host = hp.getHost();
        if (host.isEmpty() || host.chars().anyMatch(c -> c <= ' ' || c == '/' || c == '@')) {
            throw bad(spec, "'" + entry + "' has no usable host");
        }
        return hp;
    }
}
