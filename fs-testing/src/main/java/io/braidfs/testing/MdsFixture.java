package io.braidfs.testing;

import com.google.protobuf.Message;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.mds.access.MdsSecurityConfigKeys;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.mds.journal.SyncStats;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.StatFsRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One real {@link MdsServer} for a test or a benchmark: RocksDB in a directory of the caller's,
 * Netty on {@code 127.0.0.1:0}, and {@code N} data servers registered through {@code
 * ClusterService} (registration metadata only: distinct hosts {@code ds<i>.test}, 1 TiB each, one
 * heartbeat; no data-server process exists), so that {@code Create} can place chunk set 0. Or, made
 * with {@link #attach}, the same calls against an MDS that runs elsewhere (a {@code braid mds}
 * process).
 *
 * <pre>{@code
 * try (MdsFixture mds = MdsFixture.builder(tempDir).build()) {
 *   mds.start();
 *   RpcClient alice = mds.client("alice", "staff");   // closed by the fixture
 *   alice.callSync(mds.address(), RpcMethod.MKDIR, ...);
 *   mds.mkdir("/a");                                   // as the superuser
 *   mds.restart();                                     // same store; clients must be asked again
 * }
 * }</pre>
 *
 * <p>The dead interval defaults to an hour so the one heartbeat per registration keeps the data
 * servers live for the whole test; {@link #heartbeat()} sends another round if a test shortens it.
 * After a restart the data servers register again with the ids and the cluster id the first
 * registration gave them, as real data servers do from their data directories. Every client takes
 * its {@code braid.rpc.*} settings from the fixture's configuration (a benchmark sets the spin wait
 * there); the server is durable only if {@code braid.mds.store.sync} is set.
 *
 * <p>The namespace calls ({@link #create}, {@link #mkdir}, {@link #rename}, {@link #getAttr},
 * {@link #readDir}, ...) go through the superuser's client, or the attached one, over the wire
 * protocol. Failures of the fixture's own checks are {@link AssertionError}s, thrown without
 * AssertJ so that benchmarks can run it without test libraries.
 *
 * <p>Thread-safety: one thread drives the lifecycle (start, restart, close); clients may be asked
 * for, and the namespace calls made, from any thread while it runs.
 */
public final class MdsFixture implements AutoCloseable {
  /** The superuser the fixture configures unless told otherwise (the server's default too). */
  public static final String SUPERUSER = "root";

  /** The capacity each registered data server reports: 1 TiB. */
  public static final long DATA_SERVER_CAPACITY = 1L << 40;

  private final Map<String, String> config;
  private final int dataServers;
  private final String superuserName;
  private final @Nullable Path deleteOnClose;
  private final List<RpcClient> clients = new ArrayList<>();
  private final List<Integer> serverIds = new ArrayList<>();
  private final @Nullable InetSocketAddress attachedAddress;
  private final @Nullable RpcClient attachedClient;
  private String clusterId = "";
  private @Nullable MdsServer server;
  private @Nullable RpcClient dataServerClient;
  private volatile @Nullable RpcClient superuserClient;

  private MdsFixture(Builder b) {
    this.dataServers = b.dataServers;
    Map<String, String> c = new HashMap<>();
    c.put(MdsConfigKeys.ADDRESS.name(), "127.0.0.1:0");
    c.put(MdsStoreConfigKeys.DIR.name(), b.dir.resolve("mds-store").toString());
    c.put(MdsSecurityConfigKeys.SUPERUSER.name(), SUPERUSER);
    c.put(MdsClusterConfigKeys.DEAD_INTERVAL.name(), "1h");
    c.putAll(b.extra);
    this.config = Map.copyOf(c);
    this.superuserName = c.get(MdsSecurityConfigKeys.SUPERUSER.name());
    this.deleteOnClose = b.deleteOnClose ? b.dir : null;
    this.attachedAddress = null;
    this.attachedClient = null;
  }

  private MdsFixture(InetSocketAddress address, RpcClient client) {
    this.dataServers = 0;
    this.config = Map.of();
    this.superuserName = client.user();
    this.deleteOnClose = null;
    this.attachedAddress = address;
    this.attachedClient = client;
  }

  /**
   * A builder for a fixture whose store lives under {@code dir} (a {@code @TempDir}).
   *
   * @throws NullPointerException if {@code dir} is null
   */
  public static Builder builder(Path dir) {
    return new Builder(dir, false);
  }

  /**
   * A builder for a fixture in a new directory under {@code base}, deleted at {@link #close()}: for
   * benchmarks, whose store must be on the disk being measured rather than in a tmpfs.
   *
   * @throws IOException if the directory cannot be made
   */
  public static Builder inNewDirectory(Path base) throws IOException {
    Files.createDirectories(base);
    return new Builder(Files.createTempDirectory(base, "mds-fixture-"), true);
  }

  /**
   * The namespace calls against the MDS at {@code address}, run by someone else, made through
   * {@code client} (which stays the caller's to close). {@link #start()}, {@link #restart()} and
   * {@link #server()} are not available; {@link #registerDataServers(int)} is.
   */
  public static MdsFixture attach(InetSocketAddress address, RpcClient client) {
    return new MdsFixture(Objects.requireNonNull(address, "address"), client);
  }

  /** The status behind a failed call, or null when the failure carries none. */
  public static @Nullable Status status(IOException e) {
    return e instanceof StatusException s ? s.status() : null;
  }

  /** The configuration the server runs with (empty for an attached fixture). */
  public BraidConfig config() {
    return BraidConfig.fromMap(config);
  }

  /**
   * Starts the server and registers the data servers.
   *
   * @throws IllegalStateException if it is already running, or the fixture is attached
   */
  public MdsFixture start() throws IOException {
    if (attachedAddress != null) {
      throw new IllegalStateException("an attached fixture does not run the MDS");
    }
    if (server != null) {
      throw new IllegalStateException("already started");
    }
    MdsServer s = new MdsServer(config());
    server = s;
    s.start();
    registerDataServers(dataServers);
    return this;
  }

  /** The running server. */
  public MdsServer server() {
    if (server == null) {
      throw new IllegalStateException("not started");
    }
    return server;
  }

  /** The address of the MDS: the running server's, or the attached one. */
  public InetSocketAddress address() {
    return attachedAddress != null ? attachedAddress : server().address();
  }

  /** The journal's group commit since the server started. */
  public SyncStats syncStats() {
    return server().journalSyncStats();
  }

  /** The ids the MDS gave the data servers, in registration order. */
  public int[] dataServerIds() {
    return serverIds.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The cluster id the MDS answered the first registration with. */
  public String clusterId() {
    return clusterId;
  }

  /**
   * A started client acting as {@code user} with {@code groups} (primary first), closed by the
   * fixture at {@link #close()} or {@link #restart()}.
   */
  public synchronized RpcClient client(String user, String... groups) {
    RpcClient c =
        RpcClient.builder("test-" + user + "-" + clients.size())
            .user(user)
            .groups(Arrays.asList(groups))
            .options(RpcOptions.from(config()))
            .build();
    clients.add(c);
    c.start();
    return c;
  }

  /** The configured superuser's name ({@link #SUPERUSER} unless the builder changed it). */
  public String superuserName() {
    return superuserName;
  }

  /**
   * The shared client of the configured superuser (its group named as the user), made on first use;
   * for an attached fixture, the attached client.
   */
  public RpcClient superuser() {
    if (attachedClient != null) {
      return attachedClient;
    }
    RpcClient c = superuserClient; // benchmarks call this per operation: no lock once made
    if (c == null) {
      synchronized (this) {
        c = superuserClient;
        if (c == null) {
          c = client(superuserName, superuserName);
          superuserClient = c;
        }
      }
    }
    return c;
  }

  /**
   * Stops the server, closing every client handed out so far, and starts a new one on the same
   * store directory (on a new port); the data servers register again with their ids.
   */
  public void restart() throws IOException {
    closeClients();
    if (server != null) {
      server.close();
      server = null;
    }
    start();
  }

  /**
   * Registers {@code count} data servers on distinct hosts ({@code ds1.test}, ...), one 1 TiB data
   * dir each, and heartbeats each once so that the MDS knows their free space. The first {@code
   * count} of those registered before register again with the ids they were given. {@link #start()}
   * calls it with the builder's count.
   *
   * @throws AssertionError if the MDS assigns no id, or a changed one on a registration again
   */
  public void registerDataServers(int count) throws IOException {
    for (int i = 0; i < count; i++) {
      String host = "ds" + (i + 1) + ".test";
      int knownId = i < serverIds.size() ? serverIds.get(i) : 0;
      RegisterDataServerRequest request =
          RegisterDataServerRequest.newBuilder()
              .setServerId(knownId)
              .setClusterId(clusterId)
              .setHost(host)
              .setPort(9866)
              .addDataDirs(
                  DataDir.newBuilder()
                      .setPath("/data/" + host)
                      .setStorageId("storage-" + host)
                      .setCapacityBytes(DATA_SERVER_CAPACITY))
              .setCapacityBytes(DATA_SERVER_CAPACITY)
              .setSoftwareVersion("test")
              .build();
      RegisterDataServerResponse r =
          dataServerClient().callSync(address(), RpcMethod.REGISTER_DATA_SERVER, request);
      check(r.getServerId() != 0, "the MDS gave %s no id", host);
      if (knownId != 0) {
        check(
            r.getServerId() == knownId,
            "id of %s after a restart: %d, was %d",
            host,
            r.getServerId(),
            knownId);
        check(
            r.getClusterId().equals(clusterId),
            "cluster id after a restart: %s, was %s",
            r.getClusterId(),
            clusterId);
      }
      if (i < serverIds.size()) {
        serverIds.set(i, r.getServerId());
      } else {
        serverIds.add(r.getServerId());
      }
      clusterId = r.getClusterId();
    }
    check(
        new HashSet<>(serverIds).size() == serverIds.size(),
        "data server ids are not distinct: %s",
        serverIds);
    heartbeat();
  }

  /** One heartbeat from every data server, each reporting 1 TiB free; all must be accepted. */
  public void heartbeat() throws IOException {
    for (int id : serverIds) {
      HeartbeatResponse r =
          dataServerClient()
              .callSync(
                  address(),
                  RpcMethod.HEARTBEAT,
                  HeartbeatRequest.newBuilder()
                      .setServerId(id)
                      .setCapacityBytes(DATA_SERVER_CAPACITY)
                      .setUsedBytes(0)
                      .setAvailableBytes(DATA_SERVER_CAPACITY)
                      .build());
      check(!r.getRegisterAgain(), "the MDS asks data server %d to register again", id);
    }
  }

  private RpcClient dataServerClient() {
    if (attachedClient != null) {
      return attachedClient;
    }
    if (dataServerClient == null) {
      dataServerClient = client(superuserName, superuserName);
    }
    return dataServerClient;
  }

  private static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new AssertionError(String.format(format, args));
    }
  }

  // ---- namespace calls, as the superuser (or the attached client) ---------------------------

  /** A create of a file with mode 0644 and the default layout. */
  public static CreateRequest createRequest(String path) {
    return CreateRequest.newBuilder().setPath(path).setMode(0644).build();
  }

  /** Creates a file (mode 0644, default layout) and returns its attributes. */
  public Attributes create(String path) throws IOException {
    return superuser().callSync(address(), RpcMethod.CREATE, createRequest(path)).getAttributes();
  }

  /** Makes a directory (mode 0755) and returns its attributes. */
  public Attributes mkdir(String path) throws IOException {
    return superuser()
        .callSync(
            address(),
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder().setPath(path).setMode(0755).build())
        .getAttributes();
  }

  /** Renames with POSIX semantics, refusing to replace an existing target. */
  public void rename(String from, String to) throws IOException {
    superuser()
        .callSync(
            address(),
            RpcMethod.RENAME,
            RenameRequest.newBuilder()
                .setSourcePath(from)
                .setDestinationPath(to)
                .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
                .setNoReplace(true)
                .build());
  }

  public Attributes getAttr(String path) throws IOException {
    return superuser()
        .callSync(address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  /** The attributes of {@code path}, or empty if it does not exist. */
  public Optional<Attributes> getAttrIfExists(String path) throws IOException {
    try {
      return Optional.of(getAttr(path));
    } catch (IOException e) {
      if (status(e) == Status.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** The number of inodes the MDS says the namespace holds (StatFs). */
  public long inodeCount() throws IOException {
    return superuser()
        .callSync(address(), RpcMethod.STAT_FS, StatFsRequest.newBuilder().setPath("/").build())
        .getInodeCount();
  }

  /** Every entry of a directory, reading page after page. */
  public List<DirEntry> readDir(String path) throws IOException {
    List<DirEntry> all = new ArrayList<>();
    String after = "";
    while (true) {
      ReadDirResponse page =
          superuser()
              .callSync(
                  address(),
                  RpcMethod.READ_DIR,
                  ReadDirRequest.newBuilder().setPath(path).setStartAfter(after).build());
      all.addAll(page.getEntriesList());
      if (!page.getHasMore() || page.getEntriesCount() == 0) {
        return all;
      }
      after = page.getEntries(page.getEntriesCount() - 1).getName();
    }
  }

  /**
   * Creates every path with up to {@code window} creates in flight; for setting up, not timed.
   *
   * @throws IOException if a create failed, or creates are still in flight after 60 s
   */
  public void createAll(List<String> paths, int window) throws IOException {
    RpcClient client = superuser();
    InetSocketAddress address = address();
    Semaphore slots = new Semaphore(window);
    AtomicReference<Throwable> failure = new AtomicReference<>();
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

  private synchronized void closeClients() {
    for (RpcClient c : clients) {
      c.close();
    }
    clients.clear();
    dataServerClient = null;
    superuserClient = null;
  }

  /**
   * Closes the clients, then the server, and waits until no {@code braid-*} thread is left; then
   * deletes the directory of a fixture made {@link #inNewDirectory}. An attached fixture closes
   * only the clients it made.
   */
  @Override
  public void close() {
    closeClients();
    if (attachedAddress != null) {
      return;
    }
    if (server != null) {
      server.close();
      server = null;
    }
    Await.noBraidThreads(Duration.ofSeconds(10));
    if (deleteOnClose != null) {
      deleteTree(deleteOnClose);
    }
  }

  private static void deleteTree(Path root) {
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

  /**
   * At most {@value #SIZE} asynchronous calls in flight: {@link #issue} waits for a free slot, and
   * the call's completion (on the client's event loop) frees it. The first failure is kept and
   * thrown by the next {@link #issue} or by {@link #drain}. For load that a few client threads keep
   * up without one thread per call.
   *
   * <p>Thread-safety: thread-safe.
   */
  public static final class Window {
    public static final int SIZE = 16;

    private final Semaphore slots = new Semaphore(SIZE);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** Waits for a slot, then issues the call {@code call} makes and tracks it. */
    public <R extends Message> void issue(Supplier<CompletableFuture<RpcResponse<R>>> call)
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
    public void drain() throws IOException {
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

  /**
   * Builds an {@link MdsFixture}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final Path dir;
    private final boolean deleteOnClose;
    private final Map<String, String> extra = new HashMap<>();
    private int dataServers = 3;

    private Builder(Path dir, boolean deleteOnClose) {
      this.dir = Objects.requireNonNull(dir, "dir");
      this.deleteOnClose = deleteOnClose;
    }

    /** Sets a configuration key (overriding the fixture's own settings). */
    public Builder config(String key, String value) {
      extra.put(key, value);
      return this;
    }

    /**
     * How many data servers to register (default 3).
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder dataServers(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("data servers must be >= 0: " + count);
      }
      this.dataServers = count;
      return this;
    }

    public MdsFixture build() {
      return new MdsFixture(this);
    }
  }
}
