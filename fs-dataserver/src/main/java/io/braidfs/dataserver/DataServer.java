package io.braidfs.dataserver;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.CallObserver;
import io.braidfs.common.rpc.ExpectedCluster;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.Tls;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.DataDirStatus;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.dataserver.store.StoreSettings;
import io.braidfs.proto.SigningKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data server: the chunk store on its data directories, the DataService on its port, and the
 * link to the MDS. Clients reach it directly with capability tokens from the MDS.
 *
 * <pre>{@code
 * try (DataServer ds = new DataServer(config)) {
 *   ds.start();                                   // listens, then registers in the background
 *   ds.awaitRegistered(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Threads: the RPC event loops (which only dispatch), {@code braid-<id>-disk-N} for all disk
 * work (one chunk always on the same thread), {@code braid-<id>-mds} for registration, heartbeats,
 * chunk reports and deletions, {@code braid-<id>-scrub} for the scrubber and {@code
 * braid-<id>-copy} to pace re-replication copies.
 *
 * <p>A data directory whose disk fails is taken out of service and its replicas reported lost; the
 * server goes on with the others and stops on its own only when none is left ({@link
 * #whenStopped()}).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class DataServer implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(DataServer.class);

  /** Bytes a read answer may carry beyond what was asked: widening to blocks at both ends. */
  private static final int READ_WIDENING = 128 << 10;

  private final BraidConfig config;
  private final String id;
  private final LifeCycle lifeCycle;
  private final ChunkIoCounters counters = new ChunkIoCounters();
  private volatile @Nullable ChunkStore store;
  private @Nullable ChunkWorkers workers;
  private @Nullable RpcClient peers;
  private @Nullable RpcServer rpc;
  private @Nullable ScheduledExecutorService timer;
  private @Nullable MdsLink link;
  private @Nullable TokenGate gate;
  private @Nullable CopyThrottle copyThrottle;
  private @Nullable IncrementalReports changes;
  private volatile @Nullable Scrubber scrubber;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private volatile CallObserver observer = CallObserver.NONE;

  /** A server configured by {@code config} ({@code braid.dataserver.*}); idle until started. */
  public DataServer(BraidConfig config, String id) {
    this.config = config;
    this.id = id;
    this.lifeCycle = new LifeCycle(id);
  }

  /** Tells {@code observer} of every call answered, from the next start on (metrics). */
  public void observe(CallObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
  }

  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      startServices();
      lifeCycle.running();
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
  }

  private void startServices() throws IOException {
    List<String> dirs = config.get(DataServerConfigKeys.DIRS);
    if (dirs.isEmpty()) {
      throw new IllegalArgumentException(
          DataServerConfigKeys.DIRS.name() + " is not set: name at least one data directory");
    }
    List<Path> paths = new ArrayList<>();
    for (String d : dirs) {
      paths.add(Path.of(d));
    }
    List<InetSocketAddress> mds = new ArrayList<>();
    for (String m : config.get(DataServerConfigKeys.MDS)) {
      mds.add(HostPort.parseSetting(DataServerConfigKeys.MDS.name(), m));
    }
    if (mds.isEmpty()) {
      throw new IllegalArgumentException(DataServerConfigKeys.MDS.name() + " is empty");
    }
    InetSocketAddress bind =
        HostPort.parseSetting(
            DataServerConfigKeys.ADDRESS.name(), config.get(DataServerConfigKeys.ADDRESS));
    // Checked before anything is opened: a server others cannot reach must not start at all.
    String advertisedHost =
        AdvertisedHost.choose(config.get(DataServerConfigKeys.ADVERTISED_HOST), bind);
    ScheduledExecutorService t =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread th = new Thread(r, "braid-" + id + "-mds");
              th.setDaemon(true);
              return th;
            });
    timer = t;
    Duration retry = config.get(DataServerConfigKeys.REGISTER_RETRY);
    IncrementalReports reports = new IncrementalReports(id, t, retry);
    changes = reports;
    ChunkStore s =
        ChunkStore.open(
            new StoreSettings(
                paths,
                config.get(DataServerConfigKeys.RESERVED).toBytes(),
                config.get(DataServerConfigKeys.CAPACITY).toBytes()),
            new StoreEvents(reports));
    store = s;
    RpcOptions options = RpcOptions.from(config);
    ChunkWorkers w = new ChunkWorkers(id, config.get(DataServerConfigKeys.DISK_THREADS));
    workers = w;
    RpcClient client =
        RpcClient.builder(TokenGate.PEER_PREFIX + id)
            // With Kerberos the service principal's own name; otherwise a claim.
            .user(Security.kerberos(config) ? "" : "braid")
            .options(options)
            .credentials(Security.clientCredentials(config, bind.getHostString()))
            .tls(Tls.forServer(config, id))
            // Once registered, this server refuses an MDS (or peer) of another cluster (MdsLink).
            .expectedCluster(ExpectedCluster.following(s::clusterId))
            .build();
    peers = client;
    client.start();
    TokenGate g =
        new TokenGate(
            id,
            config.get(DataServerConfigKeys.TOKEN_CLOCK_SKEW),
            s::maxEpochSeen,
            System::currentTimeMillis,
            Security.kerberos(config)
                ? Security.servicePeer(config)
                : c -> c.clientName().startsWith(TokenGate.PEER_PREFIX));
    gate = g;
    CopyThrottle throttle =
        new CopyThrottle(
            id,
            config.get(DataServerConfigKeys.COPY_MAX_CONCURRENT),
            config.get(DataServerConfigKeys.COPY_BANDWIDTH).toBytes());
    copyThrottle = throttle;
    DataContext ctx =
        new DataContext(
            id,
            s,
            g,
            w,
            client,
            options.callTimeout(),
            options.maxPayloadBytes() - READ_WIDENING,
            reports,
            throttle);
    WritePath writes = new WritePath(ctx, counters);
    ReadPath reads = new ReadPath(ctx, counters);
    CopyPath copies = new CopyPath(ctx);
    // Every handler only dispatches to a disk thread, so all run inline on the event loop.
    RpcServer server =
        RpcServer.builder(id)
            .bind(bind)
            .options(options)
            .observer(observer)
            .authenticator(
                Security.serverAuthenticator(config, id, bind.getHostString(), g.delegationKeys()))
            .tls(Tls.forServer(config, id))
            .clusterId(s::clusterId)
            .handle(RpcMethod.WRITE_CHUNK, writes::write, null)
            .handle(RpcMethod.SYNC_CHUNK, writes::sync, null)
            .handle(RpcMethod.FINALIZE_CHUNK, writes::finalizeChunk, null)
            .handle(RpcMethod.TRUNCATE_CHUNK, writes::truncate, null)
            .handle(RpcMethod.READ_CHUNK, reads::read, null)
            .handle(RpcMethod.GET_CHUNK_INFO, reads::info, null)
            .handle(RpcMethod.CHECKSUM_CHUNK, reads::checksum, null)
            .handle(RpcMethod.OPEN_LOCAL_REPLICA, reads::openLocal, null)
            .handle(RpcMethod.COPY_CHUNK, copies::copy, null)
            .build();
    rpc = server;
    server.start();
    InetSocketAddress bound = server.boundAddress();
    MdsLink l =
        new MdsLink(
            ctx,
            mds,
            t,
            new MdsLink.Registration(
                advertisedHost,
                advertisedPort(bound),
                config.get(DataServerConfigKeys.RACK),
                version()),
            retry,
            config.get(DataServerConfigKeys.ORPHAN_GRACE),
            config.get(DataServerConfigKeys.CHUNK_REPORT_INTERVAL),
            reports);
    link = l;
    l.start();
    long scrubRate = config.get(DataServerConfigKeys.SCRUB_BANDWIDTH).toBytes();
    if (scrubRate > 0) {
      Scrubber sc =
          new Scrubber(
              id,
              s,
              reports::corrupt,
              config.get(DataServerConfigKeys.SCRUB_INTERVAL),
              Scrubber.atRate(scrubRate));
      scrubber = sc;
      sc.start();
    }
    LOG.info("{}: serving {} replicas from {} on {}", id, s.replicas().size(), paths, bound);
  }

  /**
   * Tells the MDS of replicas that leave the store, and stops the server once no data directory is
   * left in service.
   */
  private final class StoreEvents implements ChunkStore.Listener {
    private final IncrementalReports reports;

    StoreEvents(IncrementalReports reports) {
      this.reports = reports;
    }

    @Override
    public void removed(Replica replica) {
      reports.removed(replica);
    }

    @Override
    public void dirFailed(DataDirStatus dir, List<Replica> lost, int usableDirs) {
      for (Replica r : lost) {
        reports.removed(r);
      }
      if (usableDirs == 0) {
        LOG.error(
            "{}: stopping: every data dir has failed, the last {}; replace the disks and start"
                + " again",
            id,
            dir.path());
        // On a thread of its own: this one may be a disk thread, which close() waits for.
        Thread stop = new Thread(DataServer.this::close, "braid-" + id + "-stop");
        stop.setDaemon(true);
        stop.start();
      }
    }
  }

  private int advertisedPort(InetSocketAddress bound) {
    int configured = config.get(DataServerConfigKeys.ADVERTISED_PORT);
    return configured != 0 ? configured : bound.getPort();
  }

  private static String version() {
    String v = DataServer.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /**
   * Waits until the server has registered with the MDS (it then accepts tokens).
   *
   * @return false if that did not happen within {@code timeout}
   * @throws IllegalStateException if the server is not running
   */
  public boolean awaitRegistered(Duration timeout) throws InterruptedException {
    MdsLink l = link;
    if (l == null) {
      throw new IllegalStateException(id + " is not running");
    }
    return l.awaitRegistered(timeout);
  }

  /**
   * Completes when the server has closed: after {@link #close()}, or on its own once every data
   * directory has failed. The command that runs the server waits for it as well as for a stop
   * request.
   */
  public CompletableFuture<Void> whenStopped() {
    return stopped;
  }

  /** What the scrubber has done so far; {@link ScrubStats#NONE} if it does not run. */
  public ScrubStats scrubStats() {
    Scrubber sc = scrubber;
    return sc == null ? ScrubStats.NONE : sc.stats();
  }

  /** The address the DataService listens on. */
  public InetSocketAddress address() {
    RpcServer r = rpc;
    if (r == null) {
      throw new IllegalStateException(id + " is not running");
    }
    return r.boundAddress();
  }

  /**
   * Installs the token signing keys, as the MDS's registration and heartbeat answers do. For this
   * module's tests, which run a data server with no MDS to register with.
   *
   * @throws IllegalStateException if the server is not running
   */
  void updateSigningKeys(SigningKeys keys) {
    TokenGate g = gate;
    if (g == null) {
      throw new IllegalStateException(id + " is not running");
    }
    g.updateKeys(keys);
  }

  /** The ReadChunk and WriteChunk calls answered from this server's disks since it was made. */
  public ChunkIoCounters ioCounters() {
    return counters;
  }

  /**
   * The replicas this server holds now, and its data directories' capacity, use and room summed as
   * its heartbeats report them; all zero while it is not running.
   */
  public StoreUsage storeUsage() {
    ChunkStore s = store;
    if (s == null) {
      return StoreUsage.NONE;
    }
    long capacity = 0;
    long used = 0;
    long available = 0;
    for (DataDirStatus d : s.dirs()) {
      capacity += d.capacityBytes();
      used += d.usedBytes();
      available += d.failed() ? 0 : d.availableBytes();
    }
    return new StoreUsage(s.replicaCount(), capacity, used, available);
  }

  /**
   * A data server's store at one moment.
   *
   * <p>Thread-safety: immutable.
   *
   * @param replicas replicas held
   * @param capacityBytes capacity of its data directories, less the reserved space
   * @param usedBytes bytes of its replicas' data and meta files
   * @param availableBytes bytes new writes may still use (none in a failed directory)
   */
  public record StoreUsage(long replicas, long capacityBytes, long usedBytes, long availableBytes) {
    /** A store that is not open. */
    public static final StoreUsage NONE = new StoreUsage(0, 0, 0, 0);
  }

  /** The server id the MDS assigned (0 before the first registration). */
  public int serverId() {
    ChunkStore s = store;
    return s == null ? 0 : s.serverId();
  }

  /** The chunk store (tests and tools inspect replicas through it). */
  public ChunkStore store() {
    ChunkStore s = store;
    if (s == null) {
      throw new IllegalStateException(id + " is not running");
    }
    return s;
  }

  public String id() {
    return id;
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      // Another thread closes it (the server stopping after its last disk failed): wait for that,
      // so that a caller's close() still means everything is released.
      try {
        stopped.get(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("{}: still closing after 30 s", id);
      }
      return;
    }
    Scrubber sc = scrubber;
    if (sc != null) {
      sc.close();
    }
    ScheduledExecutorService t = timer;
    if (t != null) {
      flushChanges(t);
      t.shutdownNow();
    }
    RpcServer r = rpc;
    if (r != null) {
      r.close();
    }
    ChunkWorkers w = workers;
    if (w != null) {
      w.close();
    }
    CopyThrottle ct = copyThrottle;
    if (ct != null) {
      ct.close();
    }
    RpcClient p = peers;
    if (p != null) {
      p.close();
    }
    ChunkStore s = store;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        LOG.warn("{}: closing the chunk store failed: {}", id, e.toString());
      }
    }
    lifeCycle.closed();
    stopped.complete(null);
    LOG.info("{}: closed", id);
  }

  /**
   * Sends the replica changes not yet reported, waiting at most 2 s: a server that stops because
   * its last disk failed still tells the MDS which replicas it lost.
   */
  private void flushChanges(ScheduledExecutorService t) {
    IncrementalReports c = changes;
    if (c == null || c.pending() == 0) {
      return;
    }
    try {
      t.submit(c::flush).get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      LOG.warn("{}: {} replica changes not reported before closing: {}", id, c.pending(), e);
    }
  }

  @Override
  public String toString() {
    return "DataServer[" + id + "]";
  }
}
