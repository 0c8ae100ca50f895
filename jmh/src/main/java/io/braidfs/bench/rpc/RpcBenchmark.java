package io.braidfs.bench.rpc;

import io.braidfs.bench.AbstractBenchmark;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcConfigKeys;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.rpc.Transport;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
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

/**
 * The null RPC (Ping with an empty body) over a real loopback connection, server and client in this
 * JVM, one event loop each.
 *
 * <ul>
 *   <li>{@link #roundTrip}: one call in flight; sample mode gives the latency distribution (p50).
 *   <li>{@link #pipelined}: {@code window} calls in flight on one connection; throughput.
 * </ul>
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar RpcBenchmark -rf json -rff rpc.json}
 */
@State(Scope.Benchmark)
public class RpcBenchmark extends AbstractBenchmark {
  @Param({"EPOLL"})
  public Transport.Choice transport;

  @Param({"64"})
  public int window;

  /** {@code braid.rpc.client.spin-wait}: 100us is the default, 0us parks at once. */
  @Param({"100us"})
  public String spinWait;

  private RpcServer server;
  private RpcClient client;
  private InetSocketAddress address;
  private PingRequest ping;
  private Semaphore slots;
  private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

  @Setup(Level.Trial)
  public void start() throws IOException {
    RpcOptions options =
        RpcOptions.from(
            BraidConfig.builder()
                .set(RpcConfigKeys.TRANSPORT, transport)
                .set(RpcConfigKeys.CLIENT_IO_THREADS, 1)
                .set(RpcConfigKeys.SERVER_IO_THREADS, 1)
                .set(RpcConfigKeys.CLIENT_SPIN_WAIT.name(), spinWait)
                .build());
    server = RpcServer.builder("bench-server").options(options).build();
    server.start();
    client = RpcClient.builder("bench-client").options(options).build();
    client.start();
    address = server.boundAddress();
    ping = PingRequest.getDefaultInstance();
    slots = new Semaphore(window);
    client.callSync(address, RpcMethod.PING, ping); // connect and say hello outside the timing
  }

  @TearDown(Level.Trial)
  public void stop() throws InterruptedException {
    // Wait for the pipelined calls still in flight before closing.
    slots.tryAcquire(window, 10, TimeUnit.SECONDS);
    client.close();
    server.close();
    Throwable t = failure.get();
    if (t != null) {
      throw new IllegalStateException("a pipelined call failed", t);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  public PingResponse roundTrip() throws IOException {
    return client.callSync(address, RpcMethod.PING, ping);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public void pipelined() throws InterruptedException {
    slots.acquire();
    CompletableFuture<RpcResponse<PingResponse>> f = client.call(address, RpcMethod.PING, ping);
    f.whenComplete(
        (r, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
          } else {
            r.close();
          }
          slots.release();
        });
  }
}
