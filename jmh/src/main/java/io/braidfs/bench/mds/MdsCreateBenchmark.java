package io.braidfs.bench.mds;

import io.braidfs.bench.AbstractBenchmark;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.CreateResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Creates per second against an in-process MDS with a durable store, over loopback RPC: each JMH
 * thread is one caller making blocking {@code Create} calls (exclusive, new empty file, chunk set 0
 * placed, lease taken) through one shared {@code RpcClient}. {@code create1} has one caller, {@code
 * create16} sixteen. With {@code dirs=perCaller} each caller creates in its own directory ({@code
 * /c<i>}); with {@code dirs=shared} all create in {@code /shared}.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar MdsCreateBenchmark -f 3 -rf json -rff
 * mds-create.json} (the store goes under {@code -Dbraid.bench.dir}, default java.io.tmpdir; pass it
 * with {@code -jvmArgsAppend}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MdsCreateBenchmark extends AbstractBenchmark {
  /** {@code perCaller}: one directory per caller; {@code shared}: one directory for all. */
  @Param({"perCaller", "shared"})
  public String dirs;

  /** {@code braid.rpc.client.spin-wait} of the callers' client. */
  @Param({"100us"})
  public String spinWait;

  private MdsFixture mds;
  private final AtomicInteger callers = new AtomicInteger();

  @Setup(Level.Trial)
  public void start() throws IOException {
    mds = MdsFixture.start(spinWait);
    mds.mkdir("/shared");
  }

  @TearDown(Level.Trial)
  public void stop() {
    mds.close();
  }

  /**
   * One caller: its own name prefix and counter, so names never repeat within a trial.
   *
   * <p>Thread-safety: confined to its JMH thread.
   */
  @State(Scope.Thread)
  public static class Caller {
    String prefix;
    long next;

    @Setup(Level.Trial)
    public void join(MdsCreateBenchmark b) throws IOException {
      int id = b.callers.getAndIncrement();
      if (b.dirs.equals("shared")) {
        prefix = "/shared/c" + id + "-";
      } else {
        b.mds.mkdir("/c" + id);
        prefix = "/c" + id + "/f";
      }
    }
  }

  private CreateResponse create(Caller c) throws IOException {
    return mds.client()
        .callSync(mds.address(), RpcMethod.CREATE, MdsFixture.createRequest(c.prefix + c.next++));
  }

  @Benchmark
  @Threads(1)
  public CreateResponse create1(Caller c) throws IOException {
    return create(c);
  }

  @Benchmark
  @Threads(16)
  public CreateResponse create16(Caller c) throws IOException {
    return create(c);
  }
}
