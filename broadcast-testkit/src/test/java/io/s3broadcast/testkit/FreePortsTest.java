package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void portsAreDistinctBelowTheEphemeralRangeAndBindable() throws Exception {
    List<Integer> ports = FreePorts.loopback(8);
    assertThat(ports).hasSize(8).doesNotHaveDuplicates()
        .allSatisfy(p -> assertThat(p).isBetween(FreePorts.LOWEST, FreePorts.ephemeralStart() - 1));
    for (int port : ports) {
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void noPortsIsAnEmptyList() {
    assertThat(FreePorts.loopback(0)).isEmpty();
  }
}
