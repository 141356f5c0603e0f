package io.s3broadcast.testkit.proxy;

import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of a {@link FaultProxy}'s counters since it started.
 *
 * @param connections client connections accepted
 * @param requests request heads read from clients (faulted ones included)
 * @param faults faults actually injected, by kind
 * @param bytesToUpstream request bytes (heads and bodies) written to upstream
 * @param bytesToClient response bytes (heads and bodies, the proxy's own error responses included)
 *     written to clients
 * @param throttleNanos total time response writers waited for the bandwidth limits, on the
 *     proxy's {@link ThrottleClock}; summed over connections, so it can exceed wall time
 * @param bytesToClientBySource response bytes (heads and bodies) by source: the label of the port the client
 *     connected to ({@link FaultProxy#openPort}), or else the client's IP address
 */
public record ProxyStats(
    long connections,
    long requests,
    Map<FaultKind, Long> faults,
    long bytesToUpstream,
    long bytesToClient,
    long throttleNanos,
    Map<String, Long> bytesToClientBySource) {

  public ProxyStats {
    EnumMap<FaultKind, Long> copy = new EnumMap<>(FaultKind.class);
    for (FaultKind kind : FaultKind.values()) {
      copy.put(kind, faults.getOrDefault(kind, 0L));
    }
    faults = Map.copyOf(copy);
    bytesToClientBySource = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(bytesToClientBySource));
  }

  /** Response bytes sent to one source, 0 if none. */
  public long bytesToClient(String source) {
    return bytesToClientBySource.getOrDefault(source, 0L);
  }

  /** Faults of one kind actually injected. */
  public long faults(FaultKind kind) {
    return faults.get(kind);
  }

  /** Faults of all kinds actually injected. */
  public long totalFaults() {
    return faults.values().stream().mapToLong(Long::longValue).sum();
  }
}
