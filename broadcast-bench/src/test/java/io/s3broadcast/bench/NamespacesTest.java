package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamespacesTest {

    @Test
    void aCongestionControlTheKernelOffersCanBeSet() {
        assertThat(Namespaces.congestionControlMissing("cubic", "reno bbr cubic\n")).isNull();
    }

    @Test
    void oneItDoesNotOfferIsRefusedWithWhatItOffersAndTheFix() {
        assertThat(Namespaces.congestionControlMissing("bbr", "reno cubic\n"))
                .contains("'bbr' is not available here", "reno, cubic", "modprobe tcp_bbr", "host");
    }

    @Test
    void aCongestionControlNotAllowedInNamespacesIsAddedToTheList() {
        assertThat(Namespaces.allowedWith("cubic", "reno bbr\n")).isEqualTo("reno bbr cubic");
        assertThat(Namespaces.allowedWith("cubic", "reno cubic\n")).isNull();
        assertThat(Namespaces.allowedWith("bbr", "")).isEqualTo("bbr");
    }
}
