package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.testing.Await;
import io.braidfs.mds.access.MdsSecurityConfigKeys;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One real {@link MdsServer} for a test: RocksDB in a temporary directory, Netty on {@code
 * 127.0.0.1:0}, and {@code N} data servers registered through {@code ClusterService} (registration
 * metadata only: distinct hosts {@code ds<i>.test}, 1 TiB each, one heartbeat; no data-server
 * process exists), so that {@code Create} can place chunk set 0.
 *
 * <pre>{@code
 * try (MdsFixture mds = MdsFixture.builder(tempDir).build()) {
 *   mds.start();
 *   RpcClient alice = mds.client("alice", "staff");   // closed by the fixture
 *   alice.callSync(mds.address(), RpcMethod.MKDIR, ...);
 *   mds.restart();                                     // same store; clients must be asked again
 * }
 * }</pre>
 *
 * <p>The dead interval defaults to an hour so the one heartbeat per registration keeps the data
 * servers live for the whole test; {@link #heartbeat()} sends another round if a test shortens it.
 * After a restart the data servers register again with the ids and the cluster id the first
 * registration gave them, as real data servers do from their data directories.
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it. The clients it hands out are
 * thread-safe.
 */
public final class MdsFixture implements AutoCloseable {
  /** The superuser the fixture configures unless told otherwise (the server's default too). */
  public static final String SUPERUSER = "root";

  /** The capacity each registered data server reports: 1 TiB. */
  public static final long DATA_SERVER_CAPACITY = 1L << 40;

  private final Path storeDir;
  private final Map<String, String> config;
  private final int dataServers;
  private final String superuserName;
  private final List<RpcClient> clients = new ArrayList<>();
  private final int[] serverIds;
  private String clusterId = "";
  private @Nullable MdsServer server;
  private @Nullable RpcClient dataServerClient;
  private @Nullable RpcClient superuserClient;

  private MdsFixture(Builder b) {
    this.storeDir = b.dir.resolve("mds-store");
    this.dataServers = b.dataServers;
    this.serverIds = new int[b.dataServers];
    Map<String, String> c = new HashMap<>();
    c.put(MdsConfigKeys.ADDRESS.name(), "127.0.0.1:0");
    c.put(MdsStoreConfigKeys.DIR.name(), storeDir.toString());
    c.put(MdsSecurityConfigKeys.SUPERUSER.name(), SUPERUSER);
    c.put(MdsClusterConfigKeys.DEAD_INTERVAL.name(), "1h");
    c.putAll(b.extra);
    this.config = Map.copyOf(c);
    this.superuserName = c.get(MdsSecurityConfigKeys.SUPERUSER.name());
  }

  /**
   * A builder for a fixture whose store lives under {@code dir} (a {@code @TempDir}).
   *
   * @throws NullPointerException if {@code dir} is null
   */
  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** The configuration the server runs with. */
  public BraidConfig config() {
    return BraidConfig.fromMap(config);
  }

  /**
   * Starts the server and registers the data servers.
   *
   * @throws IllegalStateException if it is already running
   */
  public MdsFixture start() throws IOException {
    if (server != null) {
      throw new IllegalStateException("already started");
    }
    MdsServer s = new MdsServer(config());
    server = s;
    s.start();
    registerDataServers();
    return this;
  }

  /** The running server. */
  public MdsServer server() {
    if (server == null) {
      throw new IllegalStateException("not started");
    }
    return server;
  }

  /** The address the running server listens on. */
  public InetSocketAddress address() {
    return server().address();
  }

  /** The ids the MDS gave the data servers, in registration order. */
  public int[] dataServerIds() {
    return serverIds.clone();
  }

  /** The cluster id the MDS answered the first registration with. */
  public String clusterId() {
    return clusterId;
  }

  /**
   * A started client acting as {@code user} with {@code groups} (primary first), closed by the
   * fixture at {@link #close()} or {@link #restart()}.
   */
  public RpcClient client(String user, String... groups) {
    RpcClient c =
        RpcClient.builder("test-" + user + "-" + clients.size())
            .user(user)
            .groups(Arrays.asList(groups))
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
   * The shared client of the configured superuser (its group named as the user), made on first use.
   */
  public RpcClient superuser() {
    if (superuserClient == null) {
      superuserClient = client(superuserName, superuserName);
    }
    return superuserClient;
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
      assertThat(r.getRegisterAgain()).as("heartbeat of data server %d", id).isFalse();
    }
  }

  private RpcClient dataServerClient() {
    if (dataServerClient == null) {
      dataServerClient = client(superuserName, superuserName);
    }
    return dataServerClient;
  }

  private void registerDataServers() throws IOException {
    for (int i = 0; i < dataServers; i++) {
      String host = "ds" + (i + 1) + ".test";
      RegisterDataServerRequest request =
          RegisterDataServerRequest.newBuilder()
              .setServerId(serverIds[i])
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
      assertThat(r.getServerId()).as("id of %s", host).isNotZero();
      if (serverIds[i] != 0) {
        assertThat(r.getServerId()).as("id of %s after a restart", host).isEqualTo(serverIds[i]);
        assertThat(r.getClusterId()).as("cluster id after a restart").isEqualTo(clusterId);
      }
      serverIds[i] = r.getServerId();
      clusterId = r.getClusterId();
    }
    assertThat(Arrays.stream(serverIds).distinct().count())
        .as("distinct data server ids")
        .isEqualTo(dataServers);
    heartbeat();
  }

  private void closeClients() {
    for (RpcClient c : clients) {
      c.close();
    }
    clients.clear();
    dataServerClient = null;
    superuserClient = null;
  }

  /** Closes the clients, then the server, and waits until no {@code braid-*} thread is left. */
  @Override
  public void close() {
    closeClients();
    if (server != null) {
      server.close();
      server = null;
    }
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  /**
   * Builds an {@link MdsFixture}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final Path dir;
    private final Map<String, String> extra = new HashMap<>();
    private int dataServers = 3;

    private Builder(Path dir) {
      this.dir = java.util.Objects.requireNonNull(dir, "dir");
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
