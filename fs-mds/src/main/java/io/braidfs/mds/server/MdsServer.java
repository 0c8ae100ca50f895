package io.braidfs.mds.server;

import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.CallObserver;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.Tls;
import io.braidfs.mds.cluster.AdminState;
import io.braidfs.mds.cluster.ChunkPlacement;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.mds.ha.MdsHaConfigKeys;
import io.braidfs.mds.ha.StoreBootstrap;
import io.braidfs.mds.ha.StoreSnapshots;
import io.braidfs.mds.ha.StoreTooOldException;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.journal.SyncStats;
import io.braidfs.mds.journal.WalJournal;
import io.braidfs.mds.lease.Lease;
import io.braidfs.mds.lease.LeaseManager;
import io.braidfs.mds.namespace.AclOps;
import io.braidfs.mds.namespace.AdminOps;
import io.braidfs.mds.namespace.ClusterOps;
import io.braidfs.mds.namespace.FileConcat;
import io.braidfs.mds.namespace.FileWrites;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.namespace.NamespaceConfigKeys;
import io.braidfs.mds.namespace.NamespaceReads;
import io.braidfs.mds.namespace.NamespaceWrites;
import io.braidfs.mds.namespace.Replication;
import io.braidfs.mds.store.CachedMetadataStore;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.StoreOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One metadata server: the namespace store, its journal, and the RPC endpoint serving
 * MetadataService and ClusterService on {@code braid.mds.address}.
 *
 * <pre>{@code
 * try (MdsServer mds = new MdsServer(config)) {
 *   mds.start();
 *   InetSocketAddress at = mds.address();
 * }
 * }</pre>
 *
 * <p>The namespace store is RocksDB behind an in-memory cache of inodes and entries ({@link
 * CachedMetadataStore}, {@code braid.mds.store.cache-entries}).
 *
 * <p>Threads: Netty event loops decode and answer, and answer Lookup and GetAttr themselves when
 * the cache holds everything they need; other read-only operations run on {@code
 * braid-<id>-read-N}; every mutation runs on the one {@code braid-<id>-namespace} thread, which
 * fixes the journal order; {@code braid-<id>-monitor} expires leases and dead data servers and
 * sweeps the retry cache (its work, too, runs on the namespace thread); the {@link Replicator}
 * decides on the namespace thread and sends its chunk copies to data servers through its own RPC
 * client ({@code braid-<id>-replicator}).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MdsServer implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(MdsServer.class);

  private final BraidConfig config;
  private final Clock clock;
  private final String id;
  private final LifeCycle lifeCycle;
  private final MdsMetrics metrics = new MdsMetrics();

  // Volatile: the metrics read them on scrape threads.
  private volatile @Nullable CachedMetadataStore store;
  private volatile @Nullable Journal journal;
  private volatile @Nullable WalJournal local;
  private @Nullable HaReplica ha;
  private volatile io.braidfs.mds.ha.@Nullable EmbeddedBookie bookie;
  private volatile Role role = Role.STARTING;

  /** Serializes a rejoin (an HA replica starting again as a standby) with close. */
  private final Object restartLock = new Object();

  /** Guards the move to REJOINING; never held while anything closes. */
  private final Object roleLock = new Object();

  /** Which start of the services is current; a step-down from an earlier one is ignored. */
  private final AtomicInteger generation = new AtomicInteger();

  /** Where a restart listens: the address first bound (its port, if configured as 0). */
  private @Nullable InetSocketAddress rebind;

  /** Store copies for bootstrapping peers (HA replicas only). */
  private volatile @Nullable StoreSnapshots snapshots;

  private volatile boolean closing;

  private final CompletableFuture<String> stopped = new CompletableFuture<>();
  private @Nullable ExecutorService mutationThread;
  private @Nullable ExecutorService readPool;
  private @Nullable ScheduledExecutorService monitor;
  private @Nullable ExecutorService scanThread;
  private @Nullable RpcServer rpc;
  private volatile @Nullable Replicator replicator;
  private @Nullable Namespace namespace;
  private byte @Nullable [] retrySweepCursor;
  private boolean inGrace = true;
  private volatile CallObserver observer = CallObserver.NONE;

  /** A server configured by {@code config} (braid.mds.*); nothing runs until {@link #start()}. */
  public MdsServer(BraidConfig config) {
    this(config, Clock.system());
  }

  /** A server with an explicit clock (tests). */
  public MdsServer(BraidConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.id = config.get(MdsConfigKeys.ID);
    this.lifeCycle = new LifeCycle(id);
  }

  /** Tells {@code observer} of every call answered from the next start on (metrics). */
  public void observe(CallObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
  }

  CallObserver observer() {
    return observer;
  }

  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      // Under the restart lock: a step-down during the start (a standby's tailer finding the
      // journal trimmed past its store) waits for the start to finish, then restarts the services.
      synchronized (restartLock) {
        startServices();
        lifeCycle.running();
      }
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
  }

  /**
   * Starts the services; an HA replica whose store is too old to follow the journal first copies a
   * peer's store ({@link StoreBootstrap}) and starts again.
   */
  private void startServices() throws IOException {
    while (true) {
      try {
        startServicesOnce();
        return;
      } catch (StoreTooOldException e) {
        LOG.warn("{}", e.getMessage());
        RpcServer server = rpc;
        if (server != null) {
          rebind = server.boundAddress();
        }
        closeServices();
        bootstrapStore();
      }
    }
  }

  /** Stages a copy of a peer's store, which the next start installs. */
  private void bootstrapStore() throws IOException {
    String host =
        HostPort.parseSetting(MdsConfigKeys.ADDRESS.name(), config.get(MdsConfigKeys.ADDRESS))
            .getHostString();
    try (RpcClient c =
        RpcClient.builder("braid-" + id + "-bootstrap")
            .options(RpcOptions.from(config))
            .credentials(Security.clientCredentials(config, host))
            .tls(Tls.forServer(config, id))
            .build()) {
      c.start();
      new StoreBootstrap(id, config, StoreOptions.from(config).dir(), c, () -> !closing).fetch();
    }
  }

  private void startServicesOnce() throws IOException {
    boolean replica = !config.get(MdsHaConfigKeys.ZK).isEmpty();
    if (replica) {
      StoreBootstrap.installIfStaged(id, StoreOptions.from(config).dir());
    }
    CachedMetadataStore s =
        new CachedMetadataStore(
            new RocksMetadataStore(id, StoreOptions.from(config), failure -> stopAfterFailure()),
            config.get(MdsStoreConfigKeys.CACHE_ENTRIES));
    store = s;
    s.start();
    InetSocketAddress configured = rebind;
    InetSocketAddress bind =
        configured != null
            ? configured
            : HostPort.parseSetting(
                MdsConfigKeys.ADDRESS.name(), config.get(MdsConfigKeys.ADDRESS));
    if (!replica) {
      WalJournal j = new WalJournal(id, s, config, clock);
      local = j;
      journal = j;
      j.start();
      serve(s, j, 1, bind);
      role = Role.LEADER;
    } else {
      snapshots =
          new StoreSnapshots(
              id,
              StoreOptions.from(config).dir(),
              s,
              () -> {
                try {
                  return Namespace.storedClusterId(s);
                } catch (IOException e) {
                  return "";
                }
              },
              config.get(MdsHaConfigKeys.SNAPSHOT_IDLE));
      HaReplica h = new HaReplica(this, config, clock, s, generation.incrementAndGet());
      ha = h;
      h.start(bind);
      rebind = address();
    }
  }

  /**
   * Serves the namespace with {@code j} as its journal under leader epoch {@code epoch}, listening
   * on {@code bind}: a lone MDS at start, an HA replica once it has taken over.
   */
  void serve(CachedMetadataStore s, Journal j, long epoch, InetSocketAddress bind)
      throws IOException {
    DataServerRegistry registry = new DataServerRegistry(config, clock);
    // Placement needs spread, not secrecy: java.util.Random (one CAS per draw on the namespace
    // thread) instead of SecureRandom (a lock and /dev/urandom mixing per create).
    ChunkPlacement placement = new ChunkPlacement(registry, config, new Random());
    LeaseManager leases = LeaseManager.from(config, clock);
    Namespace ns = new Namespace(id, s, j.view(), config, clock, leases, registry, placement);
    namespace = ns;
    ns.setEpoch(epoch);
    if (!ns.isFormatted()) {
      Mutation format = ns.format();
      await(j.append("format", format.batch()));
      LOG.info("{}: formatted a new namespace in {}", id, StoreOptions.from(config).dir());
    }
    ns.load();
    AdminOps admin = new AdminOps(ns);
    admin.load();

    ExecutorService mutations =
        new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), named("namespace", false));
    mutationThread = mutations;
    int readers = config.get(MdsConfigKeys.READ_THREADS);
    readPool = Executors.newFixedThreadPool(readers, named("read", true));
    Audit audit = new Audit(config.get(MdsConfigKeys.AUDIT));
    // One runner per start: its call watermarks know only the retry-cache entries it wrote itself
    // or probed (CallWatermarks), so a leader that took over must not reuse an earlier one.
    MutationRunner runner =
        new MutationRunner(
            ns,
            j,
            mutationThread,
            audit,
            metrics,
            config.get(MdsConfigKeys.RETRY_CACHE_TTL).toMillis(),
            clock);
    NamespaceReads reads = new NamespaceReads(ns);
    NamespaceWrites writes = new NamespaceWrites(ns);
    FileWrites files = new FileWrites(ns, writes, reads);
    RpcOptions rpcOptions = RpcOptions.from(config);
    RpcServer.Builder b =
        RpcServer.builder(id)
            .bind(bind)
            .options(rpcOptions)
            .observer(observer)
            .authenticator(
                Security.serverAuthenticator(
                    config, id, bind.getHostString(), ns.delegationTokens()))
            .tls(Tls.forServer(config, id));
    b.clusterId(ns::clusterId); // Hello names the cluster: clients refuse another cluster's MDS
    ScheduledExecutorService mon =
        Executors.newSingleThreadScheduledExecutor(named("monitor", true).single());
    monitor = mon;
    Replication replication = new Replication(ns, config.get(NamespaceConfigKeys.MAX_REPLICATION));
    RpcClient replicatorRpc =
        RpcClient.builder("braid-" + id + "-replicator")
            .options(RpcOptions.from(config))
            .credentials(Security.clientCredentials(config, bind.getHostString()))
            .tls(Tls.forServer(config, id))
            .build();
    Replicator rep =
        new Replicator(
            id,
            ns,
            replication,
            j,
            mutationThread,
            mon,
            replicatorRpc,
            config.get(MdsClusterConfigKeys.REPAIR_COPIES),
            config.get(MdsClusterConfigKeys.REPAIR_COPIES_PER_SERVER));
    replicator = rep;
    replicatorRpc.start();
    ns.onReplicationChange(rep::request);
    ClusterOps clusterOps = new ClusterOps(ns);
    clusterOps.reports().copyingWith(rep::copying);
    new MetadataHandlers(
            reads,
            writes,
            files,
            new FileConcat(ns, files),
            replication,
            runner,
            audit,
            rpcOptions,
            config.get(MdsStoreConfigKeys.CACHE_ENTRIES) > 0 ? s.cacheOnly() : null,
            chunks -> rep.requestChunks(chunks),
            clusterOps.reports())
        .register(b, readPool, mutationThread);
    new DelegationTokenHandlers(ns.delegationTokens(), runner).register(b, mutationThread);
    new AclHandlers(new AclOps(ns), runner).register(b, readPool, mutationThread);
    new ClusterHandlers(ns, clusterOps, j, rep, ServicePeers.from(config))
        .register(b, readPool, mutationThread);
    new AdminHandlers(admin, rep, j, ns, new HaAdmin(this, id, ha != null))
        .register(b, readPool, mutationThread);
    RpcServer server = b.build();
    rpc = server;
    server.start();

    long period = Math.max(100, registry.heartbeatInterval().toMillis() / 2);
    mon.scheduleWithFixedDelay(
        () -> mutations.execute(() -> housekeeping(ns, registry, leases, runner, admin, rep)),
        period,
        period,
        TimeUnit.MILLISECONDS);
    rep.startRetries();
    long scanMs = config.get(MdsClusterConfigKeys.REPAIR_SCAN_INTERVAL).toMillis();
    ExecutorService scans = Executors.newSingleThreadExecutor(named("repair-scan", true).single());
    scanThread = scans;
    mon.scheduleWithFixedDelay(
        () -> scans.execute(rep::scanAll), scanMs, scanMs, TimeUnit.MILLISECONDS);
    LOG.info("{}: serving on {}", id, server.boundAddress());
  }

  /**
   * Dead data servers (their chunks re-replicated), the end of the start-up grace, finished
   * decommissions, expired leases, the retry cache; runs on the namespace thread.
   */
  private void housekeeping(
      Namespace ns,
      DataServerRegistry registry,
      LeaseManager leases,
      MutationRunner runner,
      AdminOps admin,
      Replicator rep) {
    try {
      boolean grace = registry.inStartupGrace();
      if (inGrace && !grace) {
        LOG.info("{}: start-up grace over; checking every chunk's replication", id);
        ExecutorService scans = scanThread;
        if (scans != null) {
          scans.execute(rep::scanAll);
        }
      }
      inGrace = grace;
      for (DataServer dead : registry.expireDeadServers()) {
        LOG.warn("{}: data server {} missed its heartbeats; marked dead", id, dead);
        if (dead.state() == AdminState.IN_MAINTENANCE) {
          continue; // its replicas still count
        }
        rep.requestChunks(ns.holderIndex().chunksOf(dead.id()));
      }
      if (!grace) {
        Mutation states = ns.newMutation();
        admin.finishDecommissions(states);
        Journal j = journal;
        if (!states.isEmpty() && j != null) {
          j.append("decommissioned", states.batch());
        }
        states.applied();
      }
      for (Lease expired : leases.expired()) {
        LOG.info(
            "{}: lease of inode {} held by {} expired; recovering",
            id,
            expired.fileId(),
            expired.holderName());
        Mutation m = ns.newMutation();
        ns.closeAbandoned(m, expired.fileId());
        Journal j = journal;
        if (!m.isEmpty() && j != null) {
          j.append("recover inode " + expired.fileId(), m.batch());
        }
        m.applied();
      }
      Mutation tokens = ns.newMutation();
      ns.delegationTokens().expire(tokens);
      Journal tj = journal;
      if (!tokens.isEmpty() && tj != null) {
        tj.append("expire delegation tokens", tokens.batch());
      }
      tokens.applied();
      Mutation keys = ns.newMutation();
      if (ns.rotateSigningKeysIfDue(keys)) {
        Journal j = journal;
        if (j != null) {
          j.append("rotate signing keys", keys.batch());
        }
        keys.applied();
        LOG.info("{}: token signing keys rotated; now {}", id, ns.tokenKeys());
      }
      retrySweepCursor = runner.sweepRetryCache(retrySweepCursor, 4096);
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: housekeeping failed: {}", id, e.toString());
    }
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    } catch (java.util.concurrent.ExecutionException e) {
      throw StatusExceptions.toIOException(Status.UNAVAILABLE, "journal: " + e.getCause());
    }
  }

  /** What this MDS is doing now. */
  public enum Role {
    /** Opening its store. */
    STARTING,
    /** An HA replica following the journal; it answers NOT_LEADER. */
    STANDBY,
    /** An HA replica that won the election and is reading the journal's end. */
    TAKING_OVER,
    /** Serving the namespace (a lone MDS always). */
    LEADER,
    /** An HA replica that lost leadership, starting again as a standby. */
    REJOINING,
    /** Stopped, or stopping. */
    STOPPED
  }

  /** What this MDS is doing now. */
  public Role role() {
    return role;
  }

  void role(Role r) {
    role = r;
  }

  /** The leader epoch this MDS serves under; 0 while it does not lead. */
  public long epoch() {
    Namespace ns = namespace;
    return ns == null || role != Role.LEADER ? 0 : ns.epoch();
  }

  /** The index of the last journal record in this MDS's store (or sent to the journal). */
  public long journalIndex() {
    Journal j = journal;
    if (j != null) {
      return j.lastIndex();
    }
    WalJournal l = local;
    return l == null ? 0 : l.lastIndex();
  }

  /**
   * Completed once this MDS stopped: closed, its store failed, or (HA) it could not start again as
   * a standby after losing leadership.
   */
  public CompletableFuture<String> whenStopped() {
    return stopped;
  }

  /** Sets the RPC server that answers now (an HA standby's NOT_LEADER server, or none). */
  void rpc(@Nullable RpcServer server) {
    rpc = server;
  }

  /** The replica's own journal writer (HA: what standbys and the leader's ledger apply through). */
  void local(WalJournal j) {
    local = j;
  }

  /** Whether this MDS runs its embedded bookie already (it outlives a rejoin). */
  boolean hasBookie() {
    return bookie != null;
  }

  /** The embedded bookie, kept until close. */
  void bookie(io.braidfs.mds.ha.EmbeddedBookie b) {
    bookie = b;
  }

  /** The journal this MDS serves with. */
  void journal(Journal j) {
    journal = j;
  }

  /**
   * Stops leading: on a thread of its own, closes every service and starts them again as a standby
   * (HA). Ignored if {@code gen} is not the current start's (a late call from a term over).
   */
  void stepDown(int gen, String reason) {
    // Never waits on a rejoin: the threads a rejoin stops (BookKeeper's, Curator's) call this.
    synchronized (roleLock) {
      if (gen != generation.get() || role == Role.STOPPED || role == Role.REJOINING) {
        return; // a stale call from a term already over, or already handled
      }
      role = Role.REJOINING;
    }
    LOG.warn("{}: {}; rejoining as a standby", id, reason);
    // No mutation is acknowledged from here on: the journal refuses appends once its ledger is
    // fenced or lost, and the restart stops the RPC server before anything else. The in-memory
    // state (leases, caches, records not acknowledged) belongs to a term that is over, so
    // everything is started again from the store, which holds only acknowledged records.
    Thread t = new Thread(this::rejoin, "braid-" + id + "-rejoin");
    t.setDaemon(true);
    t.start();
  }

  private void rejoin() {
    synchronized (restartLock) {
      if (!lifeCycle.isRunning()) {
        return; // closed meanwhile
      }
      closeServices();
      try {
        startServices();
        return;
      } catch (IOException | RuntimeException e) {
        LOG.error("{}: could not rejoin as a standby; stopping: {}", id, e.toString());
      }
    }
    close();
  }

  /**
   * Hands leadership to another replica (maintenance): this replica leaves the election and rejoins
   * it as a standby, behind the others.
   *
   * @throws IOException with NOT_LEADER if this MDS does not lead, UNSUPPORTED without HA
   */
  public void handOver() throws IOException {
    if (ha == null) {
      throw StatusExceptions.toIOException(
          Status.UNSUPPORTED, id + " runs without HA (braid.mds.ha.zk): there is no other replica");
    }
    if (role != Role.LEADER) {
      throw StatusExceptions.toIOException(Status.NOT_LEADER, id + " does not lead");
    }
    stepDown(generation.get(), "handing leadership over on request");
  }

  /** The leader's RPC address as the election knows it; empty if none (or without HA). */
  public String leaderHint() {
    HaReplica h = ha;
    if (h == null) {
      RpcServer r = rpc;
      return r == null ? "" : HostPort.of(r.boundAddress()).toString();
    }
    return h.leaderHint();
  }

  /** The RPC addresses of every replica in the election, leader first; empty without HA. */
  public java.util.List<String> replicas() throws IOException {
    HaReplica h = ha;
    return h == null ? java.util.List.of() : h.replicas();
  }

  private void stopAfterFailure() {
    LOG.error("{}: the metadata store failed; the MDS stops serving", id);
    Thread t = new Thread(this::close, "braid-" + id + "-stop");
    t.setDaemon(true);
    t.start();
  }

  private NamedFactory named(String role, boolean daemon) {
    return new NamedFactory("braid-" + id + "-" + role, daemon);
  }

  /** Names threads {@code braid-<id>-<role>[-N]}. */
  private static final class NamedFactory implements java.util.concurrent.ThreadFactory {
    private final String prefix;
    private final boolean daemon;
    private final AtomicInteger n = new AtomicInteger();
    private boolean single;

    NamedFactory(String prefix, boolean daemon) {
      this.prefix = prefix;
      this.daemon = daemon;
    }

    NamedFactory single() {
      single = true;
      return this;
    }

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, single ? prefix : prefix + "-" + n.incrementAndGet());
      t.setDaemon(daemon);
      return t;
    }
  }

  /** The address the server listens on (with the real port when configured with port 0). */
  public InetSocketAddress address() {
    RpcServer server = rpc;
    if (server == null) {
      throw new IllegalStateException(id + ": not started");
    }
    return server.boundAddress();
  }

  /** The operation counters. */
  public MdsMetrics metrics() {
    return metrics;
  }

  /**
   * The journal's group commit since start: syncs, the records they made durable and their time
   * ({@link SyncStats#NONE} before start and with {@code braid.mds.store.sync=false}).
   */
  public SyncStats journalSyncStats() {
    WalJournal j = local;
    return j == null || ha != null ? SyncStats.NONE : j.syncStats();
  }

  /** This server's id ({@code braid.mds.id}). */
  public String id() {
    return id;
  }

  /**
   * Reads of the store's in-memory cache that found their entry since the store opened (0 before
   * start; an HA replica opens its store again on every change of role, which starts it from 0).
   */
  public long storeCacheHits() {
    CachedMetadataStore s = store;
    return s == null ? 0 : s.hits();
  }

  /** Reads of the store's in-memory cache that went to the store, as {@link #storeCacheHits}. */
  public long storeCacheMisses() {
    CachedMetadataStore s = store;
    return s == null ? 0 : s.misses();
  }

  /** Entries in the store's in-memory cache now (0 before start). */
  public int storeCacheEntries() {
    CachedMetadataStore s = store;
    return s == null ? 0 : s.size();
  }

  /** Files waiting for repair copies, queued or deferred (0 while this MDS does not lead). */
  public int repairWaiting() {
    Replicator r = replicator;
    return r == null ? 0 : r.waiting();
  }

  /** Repair copies under way (0 while this MDS does not lead). */
  public int repairCopiesInFlight() {
    Replicator r = replicator;
    return r == null ? 0 : r.copiesInFlight();
  }

  /** Store copies for bootstrapping peers; null unless an HA replica runs. */
  @Nullable StoreSnapshots snapshots() {
    return snapshots;
  }

  /** Who may make the calls only the cluster's own servers make. */
  ServicePeers servicePeers() {
    return ServicePeers.from(config);
  }

  /** The store with its in-memory cache, for tests in this package. */
  CachedMetadataStore cache() {
    CachedMetadataStore s = store;
    if (s == null) {
      throw new IllegalStateException(id + ": not started");
    }
    return s;
  }

  /** The namespace, for tests and tools in this process. */
  public Namespace namespace() {
    Namespace ns = namespace;
    if (ns == null) {
      throw new IllegalStateException(id + ": not started");
    }
    return ns;
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    closing = true; // a bootstrap in progress (under restartLock) stops
    synchronized (restartLock) {
      closeServices();
    }
    io.braidfs.mds.ha.EmbeddedBookie b = bookie;
    if (b != null) {
      b.close();
    }
    role = Role.STOPPED;
    lifeCycle.closed();
    stopped.complete("stopped");
  }

  /** Closes what {@link #startServices} started, in reverse, and forgets it. */
  private void closeServices() {
    ScheduledExecutorService mon = monitor;
    if (mon != null) {
      mon.shutdownNow();
    }
    ExecutorService scans = scanThread;
    if (scans != null) {
      scans.shutdownNow();
    }
    RpcServer server = rpc;
    if (server != null) {
      server.close();
    }
    shutdown(readPool);
    shutdown(mutationThread);
    Replicator rep = replicator;
    if (rep != null) {
      rep.close();
    }
    Journal j = journal;
    if (j != null && j != local) {
      j.close();
    }
    HaReplica h = ha;
    if (h != null) {
      h.close();
    }
    StoreSnapshots copies = snapshots;
    if (copies != null) {
      copies.close();
    }
    snapshots = null;
    WalJournal l = local;
    if (l != null) {
      l.close();
    }
    CachedMetadataStore s = store;
    if (s != null) {
      s.close();
    }
    monitor = null;
    scanThread = null;
    rpc = null;
    readPool = null;
    mutationThread = null;
    replicator = null;
    journal = null;
    ha = null;
    local = null;
    store = null;
    namespace = null;
    retrySweepCursor = null;
    inGrace = true;
  }

  private void shutdown(@Nullable ExecutorService e) {
    if (e == null) {
      return;
    }
    e.shutdown();
    try {
      if (!e.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("{}: executor did not stop within 10 s", id);
        e.shutdownNow();
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      e.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "MdsServer[" + id + "]";
  }
}
