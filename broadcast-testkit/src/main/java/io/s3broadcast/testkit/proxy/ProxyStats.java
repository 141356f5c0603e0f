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
 */
public record ProxyStats(
    long connections,
    long requests,
    Map<FaultKind, Long> faults,
    long bytesToUpstream,
    long bytesToClient,
    long throttleNanos) {

  public ProxyStats {
    EnumMap<FaultKind, Long> copy = new EnumMap<>(FaultKind.class);
    for (FaultKind kind : FaultKind.values()) {
      copy.put(kind, faults.getOrDefault(kind, 0L));
    }
    faults = Map.copyOf(copy);
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
