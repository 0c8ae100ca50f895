package io.braidfs.cli.internal.web;

import io.braidfs.common.error.Status;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Running totals of the calls each server in the process answered (calls, failures, time), for the
 * status page's rate and latency chart. The page polls the totals and charts the differences, so
 * nothing here keeps history or a timer.
 *
 * <p>Thread-safety: thread-safe; {@link #answered} is called from every server's handler threads.
 */
public final class CallRates {
  private static final class Totals {
    final LongAdder calls = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder nanos = new LongAdder();
  }

  private final ConcurrentHashMap<String, Totals> byServer = new ConcurrentHashMap<>();

  /** Counts one call that {@code server} answered with {@code status} after {@code nanos}. */
  public void answered(String server, Status status, long nanos) {
    Totals t = byServer.get(server);
    if (t == null) {
      t = byServer.computeIfAbsent(server, s -> new Totals());
    }
    t.calls.increment();
    if (status != Status.OK) {
      t.failed.increment();
    }
    t.nanos.add(nanos);
  }

  /**
   * The totals as JSON values: {@code timeMs} (the wall clock, to difference against) and {@code
   * servers}, by server name: {@code calls}, {@code failed}, {@code nanos}.
   */
  Map<String, Object> snapshot() {
    Map<String, Object> servers = new TreeMap<>();
    byServer.forEach(
        (name, t) -> {
          Map<String, Object> s = new LinkedHashMap<>();
          s.put("calls", t.calls.sum());
          s.put("failed", t.failed.sum());
          s.put("nanos", t.nanos.sum());
          servers.put(name, s);
        });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("timeMs", System.currentTimeMillis());
    out.put("servers", servers);
    return out;
  }
}
