package io.braidfs.bench.driver;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Experiment 8, the RPC microbenchmarks: the JMH benchmarks of this module run through JMH's API,
 * one fork per round, so each fork is one sample of the tables.
 *
 * <ul>
 *   <li>null round trip, one call in flight: Braid's {@code RpcClient.callSync} against an echo
 *       over plain blocking sockets ({@code RpcBenchmark.roundTrip}, {@code RawSocketBenchmark});
 *   <li>pipelined throughput, 64 calls in flight ({@code RpcBenchmark.pipelined});
 *   <li>frame encode and decode of a ReadChunk header, without and with a 64 KiB payload;
 *   <li>one metadata operation end to end on loopback (stat and durable create from one caller)
 *       against the same calls on the local disk ({@code LocalDiskMetadataBenchmark}).
 * </ul>
 */
final class RpcExperiment implements Experiment {
  private static final String BRAID = "Braid";
  private static final String RAW = "raw socket";
  private static final String LOCAL = "local disk";

  @Override
  public int number() {
    return 8;
  }

  @Override
  public String name() {
    return "rpc";
  }

  @Override
  public String title() {
    return "RPC microbenchmarks (JMH)";
  }

  @Override
  public String description(Run run) {
    return String.format(
        "JMH benchmarks of `jmh/` through JMH's API, one fork per round (%d forks), %s."
            + " The null round trip is a `Ping` with an empty body through `RpcClient.callSync`"
            + " over a real loopback connection (epoll, `spin-wait=100us`, the default), against a"
            + " 28-byte echo over plain blocking `java.net.Socket`s. Pipelined: 64 null calls in"
            + " flight on one connection. Codec: a `ReadChunk` header through the encoder and"
            + " decoder, with no payload and with 64 KiB. Metadata: `MdsStatBenchmark.stat1` and"
            + " `MdsCreateBenchmark.create1` (one caller, durable create: WAL synced before the"
            + " answer) against `stat` and `createFile` + `fsync` of the parent directory on the"
            + " local disk (`LocalDiskMetadataBenchmark`, sync on).",
        forks(run),
        run.quick()
            ? "1 warm-up and 2 measured iterations of 1 s each"
            : "5 warm-up and 5 measured iterations of 2 s each");
  }

  private static int forks(Run run) {
    return run.rounds(2, 3);
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    String round = "null round trip, one call in flight";
    results.describe(round, "latency percentiles of one call");
    for (String[] b :
        new String[][] {
          {"io.braidfs.bench.rpc.RpcBenchmark.roundTrip", BRAID},
          {"io.braidfs.bench.rpc.RawSocketBenchmark.roundTrip", RAW}
        }) {
      int f = 0;
      for (BenchmarkResult r : jmh(run, b[0], TimeUnit.MICROSECONDS, "spinWait", "100us")) {
        int fork = f++;
        var stats = r.getPrimaryResult().getStatistics();
        results.record(round, "p50", 50, b[1], fork, stats.getPercentile(50), Unit.MICROS);
        results.record(round, "p99", 99, b[1], fork, stats.getPercentile(99), Unit.MICROS);
      }
    }
    results.ratio(BRAID, RAW);

    int fork = 0;
    for (BenchmarkResult r :
        jmh(run, "io.braidfs.bench.rpc.RpcBenchmark.pipelined", TimeUnit.SECONDS, null, null)) {
      results.record(
          "pipelined, 64 calls in flight",
          "null calls",
          Double.NaN,
          BRAID,
          fork++,
          r.getPrimaryResult().getScore(),
          Unit.CALLS_PER_S);
    }

    Map<String, Integer> forksSeen = new HashMap<>();
    for (BenchmarkResult r :
        jmh(run, "io.braidfs.bench.codec.FrameCodecBenchmark", TimeUnit.NANOSECONDS, null, null)) {
      String label = r.getParams().getBenchmark();
      String op = label.substring(label.lastIndexOf('.') + 1);
      String payload = r.getParams().getParam("payloadBytes");
      String row = op + ("0".equals(payload) ? ", no payload" : ", 64 KiB payload");
      results.record(
          "frame codec, ReadChunk header",
          row,
          Double.NaN,
          BRAID,
          forksSeen.merge(row, 1, Integer::sum) - 1,
          r.getPrimaryResult().getScore(),
          Unit.NANOS);
    }

    String meta = "one metadata call end to end, one caller";
    for (String[] b :
        new String[][] {
          {"io.braidfs.bench.mds.MdsStatBenchmark.stat1$", BRAID, "stat"},
          {"io.braidfs.bench.mds.LocalDiskMetadataBenchmark.stat1$", LOCAL, "stat"},
          {"io.braidfs.bench.mds.MdsCreateBenchmark.create1$", BRAID, "durable create"},
          {"io.braidfs.bench.mds.LocalDiskMetadataBenchmark.create1$", LOCAL, "durable create"}
        }) {
      String param = b[1].equals(LOCAL) ? "sync" : null;
      int f = 0;
      for (BenchmarkResult r : jmh(run, b[0], TimeUnit.SECONDS, param, "true")) {
        results.record(
            meta, b[2], Double.NaN, b[1], f++, r.getPrimaryResult().getScore(), Unit.OPS_PER_S);
      }
    }
    results.ratio(BRAID, LOCAL);
  }

  /**
   * One JMH run of the benchmarks matching {@code regex}: one result per fork and parameter set.
   */
  private static Collection<BenchmarkResult> jmh(
      Run run, String regex, TimeUnit unit, String param, String value) throws Exception {
    ChainedOptionsBuilder o =
        new OptionsBuilder()
            .include(regex)
            .forks(forks(run))
            .timeUnit(unit)
            .shouldFailOnError(true);
    if (run.quick()) {
      o.warmupIterations(1)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(2)
          .measurementTime(TimeValue.seconds(1));
    }
    if (param != null) {
      o.param(param, value);
    }
    Collection<RunResult> runs = new Runner(o.build()).run();
    if (runs.isEmpty()) {
      throw new IllegalStateException("JMH ran no benchmark matching " + regex);
    }
    List<BenchmarkResult> forks = new ArrayList<>();
    for (RunResult rr : runs) {
      forks.addAll(rr.getBenchmarkResults());
    }
    return forks;
  }
}
