package io.braidfs.bench.mds;

import io.braidfs.bench.AbstractBenchmark;
import io.braidfs.common.rpc.RpcConfigKeys;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.journal.SyncStats;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.CreateResponse;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
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
 * /c<i>}); with {@code dirs=shared} all create in {@code /shared}. After each iteration it prints
 * the journal's syncs per second, mean sync time and records per sync.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar MdsCreateBenchmark -f 3 -rf json -rff
 * mds-create.json -jvmArgsPrepend -Dbraid.bench.dir=DIR} (the store goes under {@code DIR}, default
 * java.io.tmpdir; use {@code -jvmArgsPrepend}, since {@code -jvmArgsAppend} would replace the heap
 * and GC flags of {@link AbstractBenchmark}).
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
  private MdsFixture.Window window;
  private long pipelined;
  private SyncStats syncsAtIterationStart = SyncStats.NONE;
  private long iterationStartNs;

  @Setup(Level.Trial)
  public void start() throws IOException {
    mds =
        MdsFixture.inNewDirectory(
                Path.of(
                    System.getProperty("braid.bench.dir", System.getProperty("java.io.tmpdir"))))
            .config(MdsStoreConfigKeys.SYNC.name(), "true")
            .config(RpcConfigKeys.CLIENT_SPIN_WAIT.name(), spinWait)
            .build()
            .start();
    mds.mkdir("/shared");
    for (int i = 0; i < MdsFixture.Window.SIZE; i++) {
      mds.mkdir("/p" + i);
    }
    window = new MdsFixture.Window();
  }

  @Setup(Level.Iteration)
  public void markSyncs() {
    syncsAtIterationStart = mds.syncStats();
    iterationStartNs = System.nanoTime();
  }

  /**
   * Prints the iteration's group commit: durable creates wait for a WAL sync, so the disk's sync
   * time bounds the rate, and this virtual disk's varies several-fold over a day.
   */
  @TearDown(Level.Iteration)
  public void reportSyncs() {
    SyncStats s = mds.syncStats().minus(syncsAtIterationStart);
    double seconds = (System.nanoTime() - iterationStartNs) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "journal: %.0f syncs/s, %.0f us per sync, %.1f records per sync%n",
        s.syncs() / seconds,
        s.meanSyncMicros(),
        s.recordsPerSync());
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    window.drain();
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
    return mds.superuser()
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

  /**
   * Not a target figure but a diagnostic: one thread keeps 16 creates in flight with asynchronous
   * calls (to {@code /p<n mod 16>} or {@code /shared}), so the server sees 16 concurrent requests
   * without 16 client threads to wake up; the difference to {@link #create16} is the cost of
   * blocking callers on this machine.
   */
  @Benchmark
  @Threads(1)
  public void create16Async() throws IOException {
    long n = pipelined++;
    String path =
        dirs.equals("shared") ? "/shared/a" + n : "/p" + (n % MdsFixture.Window.SIZE) + "/a" + n;
    window.issue(
        () ->
            mds.superuser().call(mds.address(), RpcMethod.CREATE, MdsFixture.createRequest(path)));
  }
}
