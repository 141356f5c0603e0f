package io.s3broadcast.registry;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A fixed list of nodes, from configuration ({@code static:host:port,host:port}) or from the system property
 * {@value #MEMBERS_PROPERTY}. Every listed node counts as a member from {@link #start()} on; nobody joins
 * later, so the whole cluster must be listed.
 *
 * <p>{@link #register} does not add a node; it finds this node's entry, in this order: the entry with the
 * same node id; the entry with the same host (ignoring case) and port; the only entry with the same port
 * whose host is an address of this machine. It answers with that entry, whose id the group knows.
 * {@link #leave()} drops this node's entry from {@link #members()}.
 */
public final class StaticRegistry extends AbstractNodeRegistry {

    /** System property holding {@code host:port,host:port}; read by {@link #fromSystemProperties} and by a bare {@code static:} spec. */
    public static final String MEMBERS_PROPERTY = "s3broadcast.registry.static";

    private final List<NodeInfo> configured;
    private final Predicate<String> isLocalHost;

    StaticRegistry(GroupId group, List<NodeInfo> members, Predicate<String> isLocalHost) {
        super(group);
        this.configured = List.copyOf(members);
        this.isLocalHost = Objects.requireNonNull(isLocalHost, "isLocalHost");
        if (configured.isEmpty()) {
            throw new IllegalArgumentException("a static registry needs at least one node");
        }
        long distinct = configured.stream().map(NodeInfo::nodeId).distinct().count();
        if (distinct != configured.size()) {
            throw new IllegalArgumentException("static registry lists a node id twice: " + configured);
        }
    }

    /** The nodes in {@code members}. */
    public static StaticRegistry of(GroupId group, List<NodeInfo> members) {
        return new StaticRegistry(group, members, StaticRegistry::isAddressOfThisMachine);
    }

    /**
     * The nodes in the system property {@value #MEMBERS_PROPERTY} ({@code host:port,host:port}).
     *
     * @throws IllegalArgumentException if the property is missing or malformed
     */
    public static StaticRegistry fromSystemProperties(GroupId group) {
        return of(group, fromProperty());
    }

    /**
     * The nodes a registry made from {@code spec} lists: the spec's own, or for a bare {@code static:} those of the
     * system property {@value #MEMBERS_PROPERTY}.
     *
     * @throws IllegalArgumentException if the spec lists none and the property is missing or malformed
     */
    public static List<NodeInfo> listed(RegistrySpec.Static spec) {
        return spec.members().isEmpty() ? fromProperty() : spec.members();
    }

    private static List<NodeInfo> fromProperty() {
        String value = System.getProperty(MEMBERS_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("no static node list: give static:host:port,host:port or set the system property "
                    + MEMBERS_PROPERTY + "=host:port,host:port");
        }
        String spec = value.strip().toLowerCase(Locale.ROOT).startsWith("static:") ? value.strip() : "static:" + value.strip();
        RegistrySpec.Static parsed = (RegistrySpec.Static) RegistrySpec.parse(spec);
        if (parsed.members().isEmpty()) {
            throw new IllegalArgumentException("system property " + MEMBERS_PROPERTY + " lists no node");
        }
        return parsed.members();
    }

    /** The nodes as configured, whether or not this node has left. */
    public List<NodeInfo> configured() {
        return configured;
    }

    @Override
    protected void doStart() {
        replaceMembers(configured);
    }

    @Override
    protected NodeInfo doRegister(NodeInfo node) {
        NodeInfo entry = find(node);
        memberJoined(entry);
        return entry;
    }

    @Override
    protected void doLeave(NodeInfo node) {
        memberLeft(node.nodeId());
    }

    @Override
    protected void doClose() {
    }

    private NodeInfo find(NodeInfo node) {
        for (NodeInfo entry : configured) {
            if (entry.nodeId().equals(node.nodeId())) {
                return entry;
            }
        }
        for (NodeInfo entry : configured) {
            if (entry.port() == node.port() && entry.host().equalsIgnoreCase(node.host())) {
                return entry;
            }
        }
        List<NodeInfo> local = configured.stream()
                .filter(entry -> entry.port() == node.port() && isLocalHost.test(entry.host()))
                .collect(Collectors.toList());
        if (local.size() == 1) {
            return local.get(0);
        }
        if (local.size() > 1) {
            throw new RegistryException("static registry: this node (" + node + ") matches several entries on this machine: "
                    + local + "; register with the node id of one of them");
        }
        throw new RegistryException("static registry: this node (" + node + ") is not in the list " + configured
                + "; list its advertised host:port, or register with the id of its entry");
    }

    static boolean isAddressOfThisMachine(String host) {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (address.isLoopbackAddress() || address.isAnyLocalAddress() || NetworkInterface.getByInetAddress(address) != null) {
                    return true;
                }
            }
        } catch (UnknownHostException | SocketException e) {
            return false;
        }
        return false;
    }

    /** Serves {@code static:} specs. */
    public static final class Provider implements NodeRegistryProvider {

        @Override
        public String scheme() {
            return "static";
        }

        @Override
        public NodeRegistry create(RegistrySpec spec, RegistryConfig config) {
            if (!(spec instanceof RegistrySpec.Static s)) {
                throw new IllegalArgumentException("not a static registry spec: " + spec);
            }
            return of(config.group(), listed(s));
        }
    }
}
