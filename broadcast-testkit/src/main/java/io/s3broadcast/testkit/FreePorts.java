package io.s3broadcast.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports free a moment ago, for processes a test starts on ports it must name in advance (a static
 * registry's member list). A port the kernel hands out for {@code bind(0)} comes from the ephemeral range, the
 * range it also takes outgoing connections' source ports from, so the S3 connections of the nodes starting
 * beside it may take it before its node binds it ({@code BindException}). These ports are drawn at random below
 * that range ({@code /proc/sys/net/ipv4/ip_local_port_range} on Linux; 32768 elsewhere) and each was bound once
 * to check it is free; only another process drawing the same port can take it.
 */
public final class FreePorts {

  /** The lowest port drawn. */
  static final int LOWEST = 10_000;

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int DEFAULT_EPHEMERAL_START = 32_768;
  private static final int ATTEMPTS_PER_PORT = 50;

  private FreePorts() {}

  /** {@code n} distinct loopback ports, free a moment ago, below the ephemeral range. */
  public static List<Integer> loopback(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, was " + n);
    }
    int end = ephemeralStart();
    Set<Integer> ports = new LinkedHashSet<>();
    for (int attempt = 0; ports.size() < n && attempt < ATTEMPTS_PER_PORT * Math.max(1, n); attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, end); // end > LOWEST: ephemeralStart()
      if (bindable(port)) {
        ports.add(port);
      }
    }
    if (ports.size() < n) {
      throw new IllegalStateException("found only " + ports.size() + " of " + n + " free loopback ports in ["
          + LOWEST + ", " + end + "): free some, or widen that range");
    }
    return List.copyOf(ports);
  }

  /** The first port of the machine's ephemeral range (Linux), else 32768. */
  static int ephemeralStart() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      int start = Integer.parseInt(range[0]);
      return start > LOWEST ? start : DEFAULT_EPHEMERAL_START;
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_START;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
