package io.braidfs.bench.driver;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Experiment 8, the RPC microbenchmarks: the JMH benchmarks of this module run through JMH's API,
 * one fork per benchmark and round, so each fork is one sample of the tables.
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
        "JMH benchmarks of `jmh/` through JMH's API, one fork per benchmark and round (%d"
            + " rounds, Braid and its reference alternating), %s."
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
    String trip = "null round trip, one call in flight";
    String meta = "one metadata call end to end, one caller";
    results.describe(trip, "latency percentiles of one call");
    // Each round runs every benchmark in its own fork, a pair's two sides one after the other
    // with the order rotating, so Braid and its reference alternate as in the other experiments.
    for (int round = 0; round < forks(run); round++) {
      for (String[] b :
          Run.rotate(
              List.of(
                  new String[] {"io.braidfs.bench.rpc.RpcBenchmark.roundTrip$", BRAID},
                  new String[] {"io.braidfs.bench.rpc.RawSocketBenchmark.roundTrip$", RAW}),
              round)) {
        BenchmarkResult r = one(jmh(run, b[0], TimeUnit.MICROSECONDS, "spinWait", "100us"), b[0]);
        var stats = r.getPrimaryResult().getStatistics();
        results.record(trip, "p50", 50, b[1], round, stats.getPercentile(50), Unit.MICROS);
        results.record(trip, "p99", 99, b[1], round, stats.getPercentile(99), Unit.MICROS);
      }

      String pipelined = "io.braidfs.bench.rpc.RpcBenchmark.pipelined$";
      results.record(
          "pipelined, 64 calls in flight",
          "null calls",
          Double.NaN,
          BRAID,
          round,
          one(jmh(run, pipelined, TimeUnit.SECONDS), pipelined).getPrimaryResult().getScore(),
          Unit.CALLS_PER_S);

      // Four results per fork: encode and decode, each without and with a payload.
      for (BenchmarkResult r :
          jmh(run, "io.braidfs.bench.codec.FrameCodecBenchmark", TimeUnit.NANOSECONDS)) {
        String label = r.getParams().getBenchmark();
        String op = label.substring(label.lastIndexOf('.') + 1);
        String payload = r.getParams().getParam("payloadBytes");
        results.record(
            "frame codec, ReadChunk header",
            op + ("0".equals(payload) ? ", no payload" : ", 64 KiB payload"),
            Double.NaN,
            BRAID,
            round,
            r.getPrimaryResult().getScore(),
            Unit.NANOS);
      }

      for (String[] b :
          Run.rotate(
              List.of(
                  new String[] {"io.braidfs.bench.mds.MdsStatBenchmark.stat1$", BRAID, "stat"},
                  new String[] {
                    "io.braidfs.bench.mds.LocalDiskMetadataBenchmark.stat1$", LOCAL, "stat"
                  },
                  new String[] {
                    "io.braidfs.bench.mds.MdsCreateBenchmark.create1$", BRAID, "durable create"
                  },
                  new String[] {
                    "io.braidfs.bench.mds.LocalDiskMetadataBenchmark.create1$",
                    LOCAL,
                    "durable create"
                  }),
              round)) {
        // Pinned: the local disk syncs as the MDS does; each Braid caller creates in its own dir.
        String[] params =
            b[1].equals(LOCAL) ? new String[] {"sync", "true"} : new String[] {"dirs", "perCaller"};
        BenchmarkResult r = one(jmh(run, b[0], TimeUnit.SECONDS, params), b[0]);
        results.record(
            meta, b[2], Double.NaN, b[1], round, r.getPrimaryResult().getScore(), Unit.OPS_PER_S);
      }
    }
    results.ratio(BRAID, RAW);
    results.ratio(BRAID, LOCAL);
  }

  /** The one result of a run; more means a parameter was left unpinned. */
  private static BenchmarkResult one(List<BenchmarkResult> results, String regex) {
    if (results.size() != 1) {
      throw new IllegalStateException(
          "JMH gave " + results.size() + " results for " + regex + ", expected one");
    }
    return results.get(0);
  }

  /**
   * One JMH fork of the benchmarks matching {@code regex}, with {@code params} (name, value, ...)
   * pinned: one result per benchmark and remaining parameter set.
   */
  private static List<BenchmarkResult> jmh(Run run, String regex, TimeUnit unit, String... params)
      throws Exception {
    ChainedOptionsBuilder o =
        new OptionsBuilder().include(regex).forks(1).timeUnit(unit).shouldFailOnError(true);
    if (run.quick()) {
      o.warmupIterations(1)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(2)
          .measurementTime(TimeValue.seconds(1));
    }
    for (int i = 0; i + 1 < params.length; i += 2) {
      o.param(params[i], params[i + 1]);
    }
    Collection<RunResult> runs = new Runner(o.build()).run();
    if (runs.isEmpty()) {
      throw new IllegalStateException("JMH ran no benchmark matching " + regex);
    }
    List<BenchmarkResult> results = new ArrayList<>();
    for (RunResult rr : runs) {
      results.addAll(rr.getBenchmarkResults());
    }
    return results;
  }
}
