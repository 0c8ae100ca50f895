package io.braidfs.mds.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The MDS's operation counters: mutations applied and failed per operation, and retries answered
 * from the retry cache. Read by tests and, later, the metrics endpoint.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MdsMetrics {
  private final Map<String, LongAdder> applied = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
  private final LongAdder retried = new LongAdder();

  void mutation(String op) {
    applied.computeIfAbsent(op, k -> new LongAdder()).increment();
  }

  void failed(String op) {
    failed.computeIfAbsent(op, k -> new LongAdder()).increment();
  }

  void retry() {
    retried.increment();
  }

  /** Mutations applied, by operation name. */
  public Map<String, Long> applied() {
    return snapshot(applied);
  }

  /** Operations that failed (any status), by operation name. */
  public Map<String, Long> failed() {
    return snapshot(failed);
  }

  /** Retries answered from the retry cache. */
  public long retried() {
    return retried.sum();
  }

  private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
    Map<String, Long> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
