package io.s3broadcast.registry;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The address other nodes use to reach this one, and why it was chosen.
 *
 * <p>{@link #choose(String, String)} takes, in this order: an explicit host; the first IPv4 address of a
 * named interface; otherwise the best IPv4 address among interfaces that are up and not loopback. Best is:
 * not virtual (no bridges such as {@code docker0}, {@code veth*}, {@code virbr*}, nor VPN tunnels), then the
 * interface of the default route, then a site-local address (10/8, 172.16/12, 192.168/16), then not
 * link-local, then the lowest interface index. With none, loopback ({@code 127.0.0.1}), fine for a
 * single-host test cluster.
 *
 * @param host the host or IP literal to advertise
 * @param interfaceName the interface it belongs to, or null when the host was given explicitly
 * @param reason why, for the log
 */
public record AdvertisedAddress(String host, String interfaceName, String reason) {

    /** System property: the host to advertise, used as is. */
    public static final String HOST_PROPERTY = "s3broadcast.advertise.host";

    /** System property: the name of the interface whose address to advertise. */
    public static final String INTERFACE_PROPERTY = "s3broadcast.advertise.interface";

    private static final Pattern VIRTUAL_NAME = Pattern.compile(
            "(docker|br-|veth|virbr|vnet|vmnet|vboxnet|cni|flannel|cali|kube-|lxc|lxdbr|podman|weave|cilium|tun|tap|utun|wg|zt|tailscale)"
                    + ".*");

    public AdvertisedAddress {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(reason, "reason");
    }

    /** Chooses with the overrides in the system properties {@value #HOST_PROPERTY} and {@value #INTERFACE_PROPERTY}. */
    public static AdvertisedAddress choose() {
        return choose(System.getProperty(HOST_PROPERTY), System.getProperty(INTERFACE_PROPERTY));
    }

    /**
     * Chooses among this machine's interfaces.
     *
     * @param hostOverride advertise this host as is; null or blank to choose
     * @param interfaceOverride advertise the first IPv4 address of this interface; null or blank to choose
     * @throws IllegalArgumentException if the named interface does not exist, is down or has no IPv4 address
     */
    public static AdvertisedAddress choose(String hostOverride, String interfaceOverride) {
        if (hostOverride != null && !hostOverride.isBlank()) {
            return new AdvertisedAddress(hostOverride.strip(), null, "given explicitly");
        }
        return choose(null, interfaceOverride, interfacesOfThisMachine(), defaultRouteInterfaceOfThisMachine());
    }

    /** The choice, given the interfaces and the default route's interface; see the class description. */
    static AdvertisedAddress choose(String hostOverride, String interfaceOverride, List<Nic> nics, Optional<String> defaultRoute) {
        if (hostOverride != null && !hostOverride.isBlank()) {
            return new AdvertisedAddress(hostOverride.strip(), null, "given explicitly");
        }
        if (interfaceOverride != null && !interfaceOverride.isBlank()) {
            String name = interfaceOverride.strip();
            Nic nic = nics.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("no network interface named '" + name + "'; interfaces: "
                            + nics.stream().map(Nic::name).toList()));
            if (!nic.up()) {
                throw new IllegalArgumentException("network interface '" + name + "' is down");
            }
            InetAddress address = nic.ipv4().stream().min(Comparator.comparing(AdvertisedAddress::addressRank))
                    .orElseThrow(() -> new IllegalArgumentException("network interface '" + name + "' has no IPv4 address"));
            return new AdvertisedAddress(address.getHostAddress(), name, "interface given explicitly");
        }
        List<Candidate> candidates = new ArrayList<>();
        for (Nic nic : nics) {
            if (!nic.up() || nic.loopback()) {
                continue;
            }
            for (InetAddress address : nic.ipv4()) {
                if (!address.isLoopbackAddress()) {
                    candidates.add(new Candidate(nic, address, defaultRoute.map(nic.name()::equals).orElse(false)));
                }
            }
        }
        if (candidates.isEmpty()) {
            return new AdvertisedAddress("127.0.0.1", nics.stream().filter(Nic::loopback).map(Nic::name).findFirst().orElse(null),
                    "no other interface is up with an IPv4 address; loopback");
        }
        Collections.sort(candidates);
        Candidate best = candidates.get(0);
        return new AdvertisedAddress(best.address().getHostAddress(), best.nic().name(), best.reason());
    }

    /** 0 for site-local, 1 for public, 2 for link-local: within one interface, the lower wins. */
    private static int addressRank(InetAddress address) {
        return address.isSiteLocalAddress() ? 0 : address.isLinkLocalAddress() ? 2 : 1;
    }

    /** Virtual by Java's flag (a sub-interface), by being point to point (a tunnel) or by a bridge or VPN name. */
    static boolean looksVirtual(Nic nic) {
        return nic.virtual() || nic.pointToPoint() || VIRTUAL_NAME.matcher(nic.name()).matches();
    }

    /**
     * The interface of the default IPv4 route in the Linux routing table ({@code /proc/net/route}): the up
     * route to 0.0.0.0/0 with the lowest metric. Empty if there is none.
     */
    static Optional<String> defaultRouteInterface(List<String> procNetRoute) {
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : procNetRoute) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || f[0].equals("Iface")) {
                continue;
            }
            try {
                boolean isDefault = Long.parseLong(f[1], 16) == 0 && Long.parseLong(f[7], 16) == 0;
                boolean up = (Integer.parseInt(f[3], 16) & 0x1) != 0;
                long metric = Long.parseLong(f[6]);
                if (isDefault && up && metric < bestMetric) {
                    best = f[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(best);
    }

    private static Optional<String> defaultRouteInterfaceOfThisMachine() {
        Path routes = Path.of("/proc/net/route");
        if (!Files.isReadable(routes)) {
            return Optional.empty();
        }
        try {
            return defaultRouteInterface(Files.readAllLines(routes));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static List<Nic> interfacesOfThisMachine() {
        List<Nic> nics = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                try {
                    nics.add(new Nic(ni.getName(), ni.getIndex(), ni.isUp(), ni.isLoopback(), ni.isVirtual(), ni.isPointToPoint(),
                            Collections.list(ni.getInetAddresses())));
                } catch (SocketException e) {
                    // the interface vanished while we looked; skip it
                }
            }
        } catch (SocketException e) {
            return List.of();
        }
        return nics;
    }

    /** What the chooser knows of one network interface; tests make these by hand. */
    record Nic(String name, int index, boolean up, boolean loopback, boolean virtual, boolean pointToPoint, List<InetAddress> addresses) {
        Nic {
            addresses = List.copyOf(addresses);
        }

        List<InetAddress> ipv4() {
            return addresses.stream().filter(a -> a instanceof Inet4Address && !a.isAnyLocalAddress() && !a.isMulticastAddress()).toList();
        }
    }

    private record Candidate(Nic nic, InetAddress address, boolean defaultRoute) implements Comparable<Candidate> {
        private static final Comparator<Candidate> ORDER = Comparator
                .comparing((Candidate c) -> looksVirtual(c.nic()))
                .thenComparing(c -> !c.defaultRoute())
                .thenComparing(c -> !c.address().isSiteLocalAddress())
                .thenComparing(c -> c.address().isLinkLocalAddress())
                .thenComparingInt(c -> c.nic().index())
                .thenComparing(c -> c.nic().name());

        @Override
        public int compareTo(Candidate o) {
            return ORDER.compare(this, o);
        }

        String reason() {
            List<String> why = new ArrayList<>();
            if (defaultRoute) {
                why.add("default route");
            }
            if (address.isSiteLocalAddress()) {
                why.add("site-local");
            }
            if (looksVirtual(nic)) {
                why.add("only virtual interfaces are up");
            }
            return why.isEmpty() ? "first interface that is up" : String.join(", ", why);
        }
    }
}
