package io.s3broadcast.testkit.proxy;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link ProxyStats}. */
final class Counters {
  final LongAdder connections = new LongAdder();
  final LongAdder requests = new LongAdder();
  final LongAdder bytesToUpstream = new LongAdder();
  final LongAdder bytesToClient = new LongAdder();
  final LongAdder throttleNanos = new LongAdder();
  private final Map<FaultKind, LongAdder> faults = new EnumMap<>(FaultKind.class);

  Counters() {
    for (FaultKind kind : FaultKind.values()) {
      faults.put(kind, new LongAdder());
    }
  }

  void fault(FaultKind kind) {
    faults.get(kind).increment();
  }

  ProxyStats snapshot() {
    Map<FaultKind, Long> byKind = new EnumMap<>(FaultKind.class);
    faults.forEach((kind, count) -> byKind.put(kind, count.sum()));
    return new ProxyStats(
        connections.sum(),
        requests.sum(),
        byKind,
        bytesToUpstream.sum(),
        bytesToClient.sum(),
        throttleNanos.sum());
  }
}
