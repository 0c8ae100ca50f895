package io.braidfs.testing;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ChunkLocation;
import io.braidfs.client.ChunkSetLocation;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.client.DataPathOptions;
import io.braidfs.client.DelegationToken;
import io.braidfs.client.internal.MetadataClient;
import io.braidfs.client.internal.data.ChunkService;
import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServerHooks;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.mds.access.MdsSecurityConfigKeys;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.LayoutSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A whole Braid cluster in this JVM for tests: one real {@link MdsServer} (RocksDB in a temporary
 * directory) and N real {@link DataServer}s (data directories beside it), all over Netty on {@code
 * 127.0.0.1} with ports the system picks.
 *
 * <pre>{@code
 * try (MiniCluster c = MiniCluster.builder(tempDir).dataServers(3).build()) {
 *   c.start();                                   // returns when every data server registered
 *   RpcClient client = c.newClient("alice");     // closed by the cluster
 *   WriteTarget f = c.create(client, "/a", layout);
 *   c.stopDataServer(1);  c.restartDataServer(1);
 * }
 * }</pre>
 *
 * <p>Heartbeats run every 100 ms and a data server is dead after 2 s without one, so failure tests
 * are quick. Data servers keep their directories across {@link #restartDataServer}.
 *
 * <p>Failure hooks, each on the servers' own data:
 *
 * <ul>
 *   <li>{@link #restartMds()} stops the MDS and starts it again on its store and its port (the data
 *       servers, which know it by address, register again; clients reconnect); {@link #stopMds()},
 *       {@link #killMds()} and {@link #startMds()} are its halves.
 *   <li>{@link #stopDataServer} (graceful: answers in flight are sent), {@link #killDataServer}
 *       (abrupt: every connection reset, nothing more sent, no goodbye to the MDS, which sees it
 *       die by its missing heartbeats) and {@link #restartDataServer} (on its directories, on a new
 *       port; it registers again under its id).
 *   <li>{@link #mdsFaults()} and {@link #dataServerFaults(int)}: per RPC method, drop, delay or
 *       fail the requests a server gets, set and cleared while it runs ({@link RpcFaults}).
 *   <li>{@link Builder#mdsReplicas(int)}: several MDS replicas, once MDS high availability exists
 *       (issue 27); one until then.
 * </ul>
 *
 * <p>A kill is in-process: the sockets go as a {@code kill -9}'s would, but the server's threads
 * are then stopped and its store closed cleanly, so what a write had handed to the operating system
 * stays, as after a real kill (a power cut is not modelled).
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it.
 */
public final class MiniCluster implements AutoCloseable {
  private final Path dir;
  private final int dataServerCount;
  private final Map<String, String> extra;
  private final IntFunction<Map<String, String>> perDataServer;
  private final List<@Nullable DataServer> dataServers = new ArrayList<>();
  private final List<RpcFaults> dataServerFaults = new ArrayList<>();
  private final RpcFaults mdsFaults = new RpcFaults("the MDS");
  private final List<RpcClient> clients = new ArrayList<>();
  private final List<BraidClient> braidClients = new ArrayList<>();
  private @Nullable MdsServer mds;

  /** The MDS's port, fixed at its first start so that the data servers find it after a restart. */
  private int mdsPort;

  private MiniCluster(Builder b) {
    this.dir = b.dir;
    this.dataServerCount = b.dataServers;
    this.extra = Map.copyOf(b.config);
    this.perDataServer = b.perDataServer;
    for (int i = 0; i < dataServerCount; i++) {
      dataServerFaults.add(new RpcFaults("data server " + i));
    }
  }

  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** Starts the MDS, then every data server, and waits until each has registered. */
  public void start() throws IOException {
    startMds();
    for (int i = 0; i < dataServerCount; i++) {
      dataServers.add(null);
      restartDataServer(i);
    }
  }

  /**
   * Starts the MDS on its store: on a port the system picks the first time, on that same port after
   * (waiting up to 10 s for it to be free). Data servers running meanwhile register again on their
   * own; {@link #restartMds()} waits for that.
   *
   * @throws IllegalStateException if the MDS is running
   * @throws IOException if it cannot start, or its port stays taken
   */
  public void startMds() throws IOException {
    if (mds != null) {
      throw new IllegalStateException("the MDS is running");
    }
    Map<String, String> c = new HashMap<>();
    c.put(MdsConfigKeys.ADDRESS.name(), "127.0.0.1:" + mdsPort);
    c.put(MdsStoreConfigKeys.DIR.name(), dir.resolve("mds").toString());
    c.put(MdsSecurityConfigKeys.SUPERUSER.name(), "root");
    c.put(MdsClusterConfigKeys.HEARTBEAT_INTERVAL.name(), "100ms");
    c.put(MdsClusterConfigKeys.DEAD_INTERVAL.name(), "2s");
    c.put(MdsClusterConfigKeys.MIN_FREE.name(), "1MiB");
    c.putAll(extra);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      MdsServer m = new MdsServer(BraidConfig.fromMap(c));
      try {
        m.start();
        mds = m;
        mdsPort = m.address().getPort();
        mdsFaults.attach(m.address());
        return;
      } catch (IOException e) {
        // Only a fixed port can be taken meanwhile (by another test's ephemeral port); retry it.
        if (mdsPort == 0 || System.nanoTime() - deadline > 0) {
          throw e;
        }
        LockSupport.parkNanos(100_000_000L);
      }
    }
  }

  /** Stops the MDS gracefully (answers in flight are sent); its store stays. */
  public void stopMds() {
    MdsServer m = mds;
    mds = null;
    if (m != null) {
      mdsFaults.detach();
      m.close();
    }
  }

  /**
   * Kills the MDS: every connection is reset at once and nothing more is answered, then its threads
   * stop and its store closes (see the class comment); its store stays.
   */
  public void killMds() {
    MdsServer m = mds;
    mds = null;
    if (m != null) {
      mdsFaults.detach();
      RpcServerHooks.abort(m.address());
      m.close();
    }
  }

  /**
   * Stops the MDS and starts it again on its store and port, then waits until every running data
   * server has registered with it again and reported its space (so that files can be placed).
   *
   * @throws IOException if it cannot start, or a data server is not back within 20 s
   */
  public void restartMds() throws IOException {
    stopMds();
    startMds();
    awaitDataServersReported(Duration.ofSeconds(20));
  }

  /**
   * Waits until the MDS lists every running data server as live with its space reported by a
   * heartbeat (a registration alone reports none available, and placement passes it over).
   */
  private void awaitDataServersReported(Duration timeout) throws IOException {
    Set<Integer> expected =
        runningDataServers().stream().map(DataServer::serverId).collect(Collectors.toSet());
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Set<Integer> reported =
          mds().namespace().registry().liveServers().stream()
              .filter(s -> s.usage().availableBytes() > 0 || s.usage().usedBytes() > 0)
              .map(io.braidfs.mds.cluster.DataServer::id)
              .collect(Collectors.toSet());
      if (reported.containsAll(expected)) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            "data servers "
                + expected
                + " not all back with the MDS within "
                + timeout
                + "; reported: "
                + reported);
      }
      LockSupport.parkNanos(20_000_000L);
    }
  }

  /** The MDS's address. */
  public InetSocketAddress mdsAddress() {
    return mds().address();
  }

  public MdsServer mds() {
    MdsServer m = mds;
    if (m == null) {
      throw new IllegalStateException("the MDS is not running (not started yet, or stopped)");
    }
    return m;
  }

  /** Data server {@code i} (from 0), or an exception if it is stopped. */
  public DataServer dataServer(int i) {
    DataServer d = dataServers.get(i);
    if (d == null) {
      throw new IllegalStateException("data server " + i + " is stopped");
    }
    return d;
  }

  /** The data servers running now. */
  public List<DataServer> runningDataServers() {
    List<DataServer> out = new ArrayList<>();
    for (DataServer d : dataServers) {
      if (d != null) {
        out.add(d);
      }
    }
    return out;
  }

  /**
   * Every replica, on the running data servers, of the chunks {@code path} has (asked through
   * {@code client}).
   */
  public List<Replica> replicasOf(BraidClient client, String path) throws IOException {
    List<Replica> out = new ArrayList<>();
    for (ChunkSetLocation set : client.locations(path, 0, 0).chunkSets()) {
      for (ChunkLocation chunk : set.chunks()) {
        for (DataServer ds : runningDataServers()) {
          Replica r = ds.store().get(new ChunkKey(chunk.inodeId(), chunk.chunkIndex()));
          if (r != null) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  public int dataServerCount() {
    return dataServers.size();
  }

  /** The data server with the MDS-assigned id {@code serverId}. */
  public DataServer dataServerById(int serverId) {
    for (DataServer d : dataServers) {
      if (d != null && d.serverId() == serverId) {
        return d;
      }
    }
    throw new IllegalArgumentException("no running data server has id " + serverId);
  }

  /** The index of the data server with id {@code serverId}. */
  public int indexOf(int serverId) {
    for (int i = 0; i < dataServers.size(); i++) {
      DataServer d = dataServers.get(i);
      if (d != null && d.serverId() == serverId) {
        return i;
      }
    }
    throw new IllegalArgumentException("no running data server has id " + serverId);
  }

  /**
   * Stops data server {@code i} (its connections drop once the answers in flight are sent); its
   * data stays on disk.
   */
  public void stopDataServer(int i) {
    DataServer d = dataServers.set(i, null);
    if (d != null) {
      dataServerFaults.get(i).detach();
      d.close();
    }
  }

  /**
   * Kills data server {@code i}: every connection is reset at once and nothing more is answered or
   * sent to the MDS (which notices by the missing heartbeats); then its threads stop and its store
   * closes (see the class comment). Its data stays on disk.
   */
  public void killDataServer(int i) {
    DataServer d = dataServers.set(i, null);
    if (d != null) {
      dataServerFaults.get(i).detach();
      RpcServerHooks.abort(d.address());
      d.close();
    }
  }

  /** The faults the MDS injects, by RPC method; kept across its restarts. */
  public RpcFaults mdsFaults() {
    return mdsFaults;
  }

  /** The faults data server {@code i} injects, by RPC method; kept across its restarts. */
  public RpcFaults dataServerFaults(int i) {
    return dataServerFaults.get(i);
  }

  /** (Re)starts data server {@code i} on its directories and waits until it has registered. */
  public void restartDataServer(int i) throws IOException {
    stopDataServer(i);
    Map<String, String> c = new HashMap<>();
    c.put(DataServerConfigKeys.ADDRESS.name(), "127.0.0.1:0");
    c.put(DataServerConfigKeys.DIRS.name(), dir.resolve("ds-" + i).toString());
    c.put(DataServerConfigKeys.MDS.name(), HostPort.of(mdsAddress()).toString());
    c.put(DataServerConfigKeys.REGISTER_RETRY.name(), "50ms");
    c.putAll(extra);
    c.putAll(perDataServer.apply(i));
    DataServer d = new DataServer(BraidConfig.fromMap(c), "ds-" + i);
    d.start();
    dataServers.set(i, d);
    dataServerFaults.get(i).attach(d.address());
    try {
      if (!d.awaitRegistered(Duration.ofSeconds(20))) {
        throw new IOException(d.id() + " did not register with the MDS within 20 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting " + d.id(), e);
    }
  }

  /** A started RPC client acting as {@code user} (groups: {@code user}); closed by the cluster. */
  public RpcClient newClient(String user) {
    RpcClient c = RpcClient.builder("test-" + user).user(user).groups(List.of(user)).build();
    c.start();
    clients.add(c);
    return c;
  }

  /** A connected {@link BraidClient} acting as {@code user}; closed by the cluster. */
  public BraidClient newBraidClient(String user) throws IOException {
    return newBraidClient(user, Map.of());
  }

  /**
   * A connected {@link BraidClient} acting as {@code user} (groups: {@code user}), with client
   * settings ({@code braid.client.*}) on top of the cluster's address; closed by the cluster.
   */
  public BraidClient newBraidClient(String user, Map<String, String> settings) throws IOException {
    Map<String, String> c = new HashMap<>();
    c.put(ClientConfigKeys.MDS.name(), HostPort.of(mdsAddress()).toString());
    c.putAll(settings);
    BraidClient b =
        BraidClient.builder(BraidConfig.fromMap(c))
            .user(user)
            .groups(List.of(user))
            .name("test-" + user)
            .build();
    braidClients.add(b);
    return b;
  }

  /**
   * A connected {@link BraidClient} that authenticates with a delegation token alone (a job's task)
   * and acts as the token's owner, or as {@code user} if it is not null; closed by the cluster.
   */
  public BraidClient newBraidClient(DelegationToken token, @Nullable String user)
      throws IOException {
    BraidClient.Builder b =
        BraidClient.builder(
                BraidConfig.fromMap(
                    Map.of(ClientConfigKeys.MDS.name(), HostPort.of(mdsAddress()).toString())))
            .delegationToken(token)
            .name("test-token-" + token.fields().sequence());
    if (user != null) {
      b.user(user);
    }
    BraidClient c = b.build();
    braidClients.add(c);
    return c;
  }

  /** The MDS calls of the data path, over {@code client}. */
  public ChunkService chunkService(RpcClient client) {
    return new MetadataClient(client, List.of(mdsAddress()), Duration.ofSeconds(10));
  }

  /** Creates {@code path} (and its parents) with {@code layout} and returns it ready to write. */
  public WriteTarget create(RpcClient client, String path, Layout layout) throws IOException {
    CreateResponse r =
        client.callSync(
            mdsAddress(),
            RpcMethod.CREATE,
            CreateRequest.newBuilder()
                .setPath(path)
                .setMode(0644)
                .setCreateParents(true)
                .setLayout(
                    LayoutSpec.newBuilder()
                        .setStripeUnit(layout.stripeUnit())
                        .setStripeWidth(layout.stripeWidth())
                        .setChunkSize(layout.chunkSize())
                        .setReplication(layout.replication()))
                .build());
    return new WriteTarget(
        r.getAttributes().getInodeId(),
        path,
        layout,
        0,
        r.getToken(),
        List.of(r.getFirstChunkSet()));
  }

  /** A writer for {@code target} with the default options. */
  public StripedWriter writer(RpcClient client, WriteTarget target) {
    return new StripedWriter(client, chunkService(client), DataPathOptions.defaults(), target);
  }

  /** A reader of the file {@code target} names, every read over the network. */
  public StripedReader reader(RpcClient client, WriteTarget target) {
    return reader(client, target, LocalReplicas.disabled());
  }

  /** A reader of the file {@code target} names, reading local replicas through {@code local}. */
  public StripedReader reader(RpcClient client, WriteTarget target, LocalReplicas local) {
    return new StripedReader(
        client,
        chunkService(client),
        new ReplicaHealth(),
        DataPathOptions.defaults(),
        local,
        target.inodeId(),
        target.path(),
        target.layout());
  }

  @Override
  public void close() {
    for (BraidClient c : braidClients) {
      c.close();
    }
    braidClients.clear();
    for (RpcClient c : clients) {
      c.close();
    }
    clients.clear();
    for (int i = 0; i < dataServers.size(); i++) {
      stopDataServer(i);
    }
    stopMds();
  }

  /** Configures a {@link MiniCluster}. */
  public static final class Builder {
    private final Path dir;
    private int dataServers = 3;
    private int mdsReplicas = 1;
    private final Map<String, String> config = new HashMap<>();
    private IntFunction<Map<String, String>> perDataServer = i -> Map.of();

    private Builder(Path dir) {
      this.dir = dir;
    }

    /** How many data servers (default 3). */
    public Builder dataServers(int n) {
      this.dataServers = n;
      return this;
    }

    /** Sets a configuration key on every server. */
    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    /**
     * Keys for single data servers: {@code perServer.apply(i)} is applied over {@link #config} at
     * every (re)start of data server {@code i} (say, to give each its own advertised port).
     */
    public Builder dataServerConfig(IntFunction<Map<String, String>> perServer) {
      this.perDataServer = perServer;
      return this;
    }

    /**
     * How many MDS replicas (default 1). More than one needs MDS high availability, which issue 27
     * brings; until then {@link #build()} refuses it.
     */
    public Builder mdsReplicas(int n) {
      this.mdsReplicas = n;
      return this;
    }

    /**
     * The cluster, not yet started.
     *
     * @throws IllegalArgumentException if the settings cannot be met: fewer than one MDS replica,
     *     or more than one before MDS high availability exists
     */
    public MiniCluster build() {
      if (mdsReplicas < 1) {
        throw new IllegalArgumentException(
            "a cluster needs at least one MDS replica: " + mdsReplicas);
      }
      if (mdsReplicas > 1) {
        throw new IllegalArgumentException(
            mdsReplicas
                + " MDS replicas need MDS high availability (issue 27), which does not exist yet;"
                + " a MiniCluster runs one MDS");
      }
      return new MiniCluster(this);
    }
  }
}
