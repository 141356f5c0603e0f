package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.registry.AdvertisedAddress.Nic;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdvertisedAddressTest {

    private static final Nic LO = nic("lo", 1, true, true, false, false, "127.0.0.1", "::1");
    private static final Nic ETH0 = nic("eth0", 2, true, false, false, false, "10.0.0.5", "fe80::1");
    private static final Nic ETH1 = nic("eth1", 3, true, false, false, false, "172.31.9.9");
    private static final Nic PUBLIC = nic("ens5", 4, true, false, false, false, "203.0.113.7");
    private static final Nic DOCKER = nic("docker0", 5, true, false, false, false, "172.17.0.1");
    private static final Nic VPN = nic("tun0", 6, true, false, false, true, "10.8.0.2");
    private static final Nic DOWN = nic("eth9", 7, false, false, false, false, "10.9.9.9");
    private static final Nic V6_ONLY = nic("eth6", 8, true, false, false, false, "2001:db8::5");

    private static Nic nic(String name, int index, boolean up, boolean loopback, boolean virtual, boolean p2p, String... ips) {
        try {
            List<InetAddress> addresses = new java.util.ArrayList<>();
            for (String ip : ips) {
                addresses.add(InetAddress.getByName(ip)); // literals: no lookup
            }
            return new Nic(name, index, up, loopback, virtual, p2p, addresses);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static AdvertisedAddress choose(List<Nic> nics, String defaultRoute) {
        return AdvertisedAddress.choose(null, null, nics, Optional.ofNullable(defaultRoute));
    }

    @Test
    void prefersTheDefaultRouteInterface() {
        AdvertisedAddress a = choose(List.of(LO, ETH0, ETH1, PUBLIC), "eth1");
        assertThat(a.host()).isEqualTo("172.31.9.9");
        assertThat(a.interfaceName()).isEqualTo("eth1");
        assertThat(a.reason()).contains("default route");
    }

    @Test
    void withoutARoutePrefersSiteLocalThenLowestIndex() {
        assertThat(choose(List.of(LO, PUBLIC, ETH1, ETH0), null).host()).isEqualTo("10.0.0.5");
        assertThat(choose(List.of(LO, PUBLIC), null).host()).isEqualTo("203.0.113.7");
    }

    @Test
    void skipsVirtualDownAndIpv6OnlyInterfaces() {
        assertThat(choose(List.of(LO, DOCKER, VPN, DOWN, V6_ONLY, PUBLIC), "tun0").host()).isEqualTo("203.0.113.7");
        Nic subInterface = nic("eth0:1", 9, true, false, true, false, "10.1.1.1");
        assertThat(choose(List.of(subInterface, PUBLIC), null).host()).isEqualTo("203.0.113.7");
    }

    @Test
    void virtualInterfacesOnlyWhenNothingElseIsUp() {
        AdvertisedAddress a = choose(List.of(LO, DOCKER, DOWN), null);
        assertThat(a.host()).isEqualTo("172.17.0.1");
        assertThat(a.reason()).contains("only virtual");
    }

    @Test
    void loopbackWhenNothingElse() {
        AdvertisedAddress a = choose(List.of(LO, DOWN, V6_ONLY), null);
        assertThat(a.host()).isEqualTo("127.0.0.1");
        assertThat(a.interfaceName()).isEqualTo("lo");
        assertThat(choose(List.of(), null).host()).isEqualTo("127.0.0.1");
    }

    @Test
    void explicitHostWins() {
        AdvertisedAddress a = AdvertisedAddress.choose(" node-7.internal ", "eth0", List.of(ETH0), Optional.empty());
        assertThat(a).isEqualTo(new AdvertisedAddress("node-7.internal", null, "given explicitly"));
    }

    @Test
    void explicitInterface() {
        Nic two = nic("bond0", 10, true, false, false, false, "203.0.113.8", "192.168.4.4");
        assertThat(AdvertisedAddress.choose(null, "bond0", List.of(ETH0, two), Optional.of("eth0")).host()).isEqualTo("192.168.4.4");
        assertThat(AdvertisedAddress.choose(null, "docker0", List.of(ETH0, DOCKER), Optional.of("eth0")).host()).isEqualTo("172.17.0.1");
    }

    @Test
    void explicitInterfaceErrors() {
        assertThatThrownBy(() -> AdvertisedAddress.choose(null, "eth7", List.of(LO, ETH0), Optional.empty()))
                .hasMessageContaining("no network interface named 'eth7'").hasMessageContaining("[lo, eth0]");
        assertThatThrownBy(() -> AdvertisedAddress.choose(null, "eth9", List.of(DOWN), Optional.empty())).hasMessageContaining("down");
        assertThatThrownBy(() -> AdvertisedAddress.choose(null, "eth6", List.of(V6_ONLY), Optional.empty()))
                .hasMessageContaining("no IPv4");
    }

    @Test
    void readsTheDefaultRouteFromProcNetRoute() {
        List<String> table = List.of(
                "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
                "docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
                "eth1\t00000000\t0100A8C0\t0003\t0\t0\t200\t00000000\t0\t0\t0",
                "eth0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0",
                "wlan0\t00000000\t0100000A\t0002\t0\t0\t1\t00000000\t0\t0\t0",
                "eth0\t0000000A\t00000000\t0001\t0\t0\t100\t000000FF\t0\t0\t0");
        assertThat(AdvertisedAddress.defaultRouteInterface(table)).contains("eth0");
        assertThat(AdvertisedAddress.defaultRouteInterface(table.subList(0, 2))).isEmpty();
    }

    @Test
    void onThisMachineTheChoiceIsAnIpv4Literal() {
        assertThat(AdvertisedAddress.choose(null, null).host()).matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
    }
}
