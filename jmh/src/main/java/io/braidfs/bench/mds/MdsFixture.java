package io.braidfs.bench.mds;

import com.google.protobuf.Message;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcConfigKeys;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.mds.journal.SyncStats;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * An in-process metadata server with a durable store ({@code braid.mds.store.sync=true}) in a fresh
 * directory, one {@link RpcClient} talking to it over loopback, and three registered data servers
 * (registrations only, no data-server process: creates need them to place chunk set 0).
 *
 * <p>The store directory is made under the system property {@code braid.bench.dir} (default: {@code
 * java.io.tmpdir}); it must be on the disk being measured, not a tmpfs.
 *
 * <p>Thread-safety: thread-safe once started (the client and server are).
 */
final class MdsFixture implements AutoCloseable {
  /** Capacity each fake data server reports: 1 TiB. */
  private static final long TIB = 1L << 40;

  private final Path dir;
  private final MdsServer server;
  private final RpcClient client;
  private final InetSocketAddress address;

  private MdsFixture(Path dir, MdsServer server, RpcClient client, InetSocketAddress address) {
    this.dir = dir;
    this.server = server;
    this.client = client;
    this.address = address;
  }

  /**
   * Starts the server and the client; {@code spinWait} is {@code braid.rpc.client.spin-wait}.
   *
   * @throws IOException if the server does not start
   */
  static MdsFixture start(String spinWait) throws IOException {
    Path base =
        Path.of(System.getProperty("braid.bench.dir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(base);
    Path dir = Files.createTempDirectory(base, "mds-bench-");
    BraidConfig config =
        BraidConfig.builder()
            .set(MdsConfigKeys.ADDRESS, "127.0.0.1:0")
            .set(MdsStoreConfigKeys.DIR, dir.resolve("store").toString())
            .set(MdsStoreConfigKeys.SYNC, true)
            .set(MdsClusterConfigKeys.DEAD_INTERVAL, Duration.ofHours(1))
            .set(RpcConfigKeys.CLIENT_SPIN_WAIT.name(), spinWait)
            .build();
    MdsServer server = new MdsServer(config);
    RpcClient client = null;
    try {
      server.start();
      client = RpcClient.builder("mds-bench").user("root").options(RpcOptions.from(config)).build();
      client.start();
      MdsFixture f = new MdsFixture(dir, server, client, server.address());
      f.registerDataServers(3);
      return f;
    } catch (IOException | RuntimeException e) {
      if (client != null) {
        client.close();
      }
      server.close();
      deleteTree(dir);
      throw e;
    }
  }

  RpcClient client() {
    return client;
  }

  /** The journal's group commit since the server started. */
  SyncStats syncStats() {
    return server.journalSyncStats();
  }

  InetSocketAddress address() {
    return address;
  }

  private void registerDataServers(int count) throws IOException {
    for (int i = 1; i <= count; i++) {
      RegisterDataServerResponse r =
          client.callSync(
              address,
              RpcMethod.REGISTER_DATA_SERVER,
              RegisterDataServerRequest.newBuilder()
                  .setHost("ds" + i + ".bench")
                  .setPort(7500 + i)
                  .addDataDirs(
                      DataDir.newBuilder()
                          .setPath("/data/ds" + i)
                          .setStorageId("storage-ds" + i)
                          .setCapacityBytes(TIB))
                  .setCapacityBytes(TIB)
                  .setSoftwareVersion("bench")
                  .build());
      client.callSync(
          address,
          RpcMethod.HEARTBEAT,
          HeartbeatRequest.newBuilder()
              .setServerId(r.getServerId())
              .setCapacityBytes(TIB)
              .setAvailableBytes(TIB)
              .build());
    }
  }

  void mkdir(String path) throws IOException {
    client.callSync(
        address, RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath(path).setMode(0755).build());
  }

  static CreateRequest createRequest(String path) {
    return CreateRequest.newBuilder().setPath(path).setMode(0644).build();
  }

  /** Creates every path with up to {@code window} creates in flight; for setting up, not timed. */
  void createAll(List<String> paths, int window) throws IOException {
    Semaphore slots = new Semaphore(window);
    AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
    try {
      for (String path : paths) {
        slots.acquire();
        if (failure.get() != null) {
          break;
        }
        CompletableFuture<RpcResponse<CreateResponse>> f =
            client.call(address, RpcMethod.CREATE, createRequest(path));
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
      if (!slots.tryAcquire(window, 60, TimeUnit.SECONDS)) {
        throw new IOException("creates still in flight after 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating files", e);
    }
    if (failure.get() != null) {
      throw new IOException("a create failed while setting up", failure.get());
    }
  }

  /**
   * At most {@value #SIZE} asynchronous calls in flight: {@link #issue} waits for a free slot, and
   * the call's completion (on the client's event loop) frees it. The first failure is kept and
   * thrown by the next {@link #issue} or by {@link #drain}.
   *
   * <p>Thread-safety: thread-safe.
   */
  static final class Window {
    static final int SIZE = 16;

    private final Semaphore slots = new Semaphore(SIZE);
    private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

    /** Waits for a slot, then issues the call {@code call} makes and tracks it. */
    <R extends Message> void issue(Supplier<CompletableFuture<RpcResponse<R>>> call)
        throws IOException {
      slots.acquireUninterruptibly();
      call.get()
          .whenComplete(
              (r, e) -> {
                if (e != null) {
                  failure.compareAndSet(null, e);
                } else {
                  r.close();
                }
                slots.release();
              });
      check();
    }

    /** Waits (at most 30 s) for every call in flight to end. */
    void drain() throws IOException {
      try {
        if (!slots.tryAcquire(SIZE, 30, TimeUnit.SECONDS)) {
          throw new IOException("calls still in flight after 30 s");
        }
        slots.release(SIZE);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while draining", e);
      }
      check();
    }

    private void check() throws IOException {
      Throwable t = failure.get();
      if (t != null) {
        throw new IOException("an asynchronous call failed", t);
      }
    }
  }

  @Override
  public void close() {
    client.close();
    server.close();
    deleteTree(dir);
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
