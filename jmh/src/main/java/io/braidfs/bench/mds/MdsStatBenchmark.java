package io.braidfs.bench.mds;

import io.braidfs.bench.AbstractBenchmark;
import io.braidfs.common.rpc.RpcConfigKeys;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetAttrResponse;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * Stats per second against an in-process MDS with a durable store, over loopback RPC: {@code
 * GetAttr} by path ({@code /stat/d<j>/f<k>}, so three components to resolve) of files created
 * before the measurement; each JMH thread is one caller making blocking calls through one shared
 * {@code RpcClient}, walking the files in a different order from the others. {@code stat1} has one
 * caller, {@code stat16} sixteen.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar MdsStatBenchmark -f 3 -rf json -rff
 * mds-stat.json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MdsStatBenchmark extends AbstractBenchmark {
  /** Files created before the measurement, spread over 16 directories. */
  @Param({"16384"})
  public int files;

  /** {@code braid.rpc.client.spin-wait} of the callers' client. */
  @Param({"100us"})
  public String spinWait;

  private static final int DIRS = 16;

  private MdsFixture mds;
  private GetAttrRequest[] requests;
  private final AtomicInteger callers = new AtomicInteger();
  private MdsFixture.Window window;
  private int pipelined;

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
    mds.mkdir("/stat");
    for (int d = 0; d < DIRS; d++) {
      mds.mkdir("/stat/d" + d);
    }
    List<String> paths = new ArrayList<>(files);
    for (int k = 0; k < files; k++) {
      paths.add("/stat/d" + (k % DIRS) + "/f" + k);
    }
    mds.createAll(paths, 64);
    requests = new GetAttrRequest[files];
    for (int k = 0; k < files; k++) {
      requests[k] = GetAttrRequest.newBuilder().setPath(paths.get(k)).build();
    }
    window = new MdsFixture.Window();
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    window.drain();
    mds.close();
  }

  /**
   * One caller's position in the file list; callers step by different odd strides.
   *
   * <p>Thread-safety: confined to its JMH thread.
   */
  @State(Scope.Thread)
  public static class Caller {
    int cursor;
    int stride;

    @Setup(Level.Trial)
    public void join(MdsStatBenchmark b) {
      int id = b.callers.getAndIncrement();
      cursor = (id * 7919) % b.files;
      stride = 2 * id + 1;
    }
  }

  private GetAttrResponse stat(Caller c) throws IOException {
    GetAttrRequest request = requests[c.cursor];
    c.cursor = (c.cursor + c.stride) % files;
    return mds.superuser().callSync(mds.address(), RpcMethod.GET_ATTR, request);
  }

  @Benchmark
  @Threads(1)
  public GetAttrResponse stat1(Caller c) throws IOException {
    return stat(c);
  }

  @Benchmark
  @Threads(16)
  public GetAttrResponse stat16(Caller c) throws IOException {
    return stat(c);
  }

  /**
   * Not a target figure but a diagnostic: one thread keeps 16 stats in flight with asynchronous
   * calls, so the server sees 16 concurrent requests without 16 client threads to wake up.
   */
  @Benchmark
  @Threads(1)
  public void stat16Async() throws IOException {
    GetAttrRequest request = requests[pipelined];
    pipelined = (pipelined + 7919) % files;
    window.issue(() -> mds.superuser().call(mds.address(), RpcMethod.GET_ATTR, request));
  }
}
