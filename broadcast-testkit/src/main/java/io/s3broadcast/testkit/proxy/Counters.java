package io.s3broadcast.testkit.proxy;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link ProxyStats}. */
final class Counters {
  final LongAdder connections = new LongAdder();
  final LongAdder requests = new LongAdder();
  final LongAdder bytesToUpstream = new LongAdder();
  final LongAdder bytesToClient = new LongAdder();
  final LongAdder throttleNanos = new LongAdder();
  private final Map<FaultKind, LongAdder> faults = new EnumMap<>(FaultKind.class);
  private final Map<String, LongAdder> bySource = new ConcurrentHashMap<>();

  Counters() {
    for (FaultKind kind : FaultKind.values()) {
      faults.put(kind, new LongAdder());
    }
  }

  void fault(FaultKind kind) {
    faults.get(kind).increment();
  }

  /** The counter of response bytes sent to one source (a port's label or a client address). */
  LongAdder source(String source) {
    return bySource.computeIfAbsent(source, s -> new LongAdder());
  }

  ProxyStats snapshot() {
    Map<String, Long> sources = new TreeMap<>();
    bySource.forEach((source, count) -> sources.put(source, count.sum()));
    Map<FaultKind, Long> byKind = new EnumMap<>(FaultKind.class);
    faults.forEach((kind, count) -> byKind.put(kind, count.sum()));
    return new ProxyStats(
        connections.sum(),
        requests.sum(),
        byKind,
        bytesToUpstream.sum(),
        bytesToClient.sum(),
        throttleNanos.sum(),
        sources);
  }
}
