package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.mds.ha.MdsHaConfigKeys;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.mds.zk.EmbeddedZooKeeper;
import io.braidfs.mds.zk.ZooKeeperConfigKeys;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.Reader;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MDS side of {@code braid local --ha}: a ZooKeeper server and {@value #REPLICAS} MDS replicas
 * in this process, on loopback, the replicas electing their leader in that ZooKeeper and each
 * running its own BookKeeper bookie for the journal.
 *
 * <p>Under the cluster's directory: ZooKeeper's data in {@code DIR/zk}, replica {@code mds-i}'s
 * store (its bookie in {@code bookie/} inside it) in {@code DIR/mds-i}, and {@value #PORTS_FILE}. A
 * bookie's address is its identity in BookKeeper, so its port must be the same on every start: the
 * first start picks free ports and writes them to that file, later starts use them (and fail,
 * naming the port, if one is taken). ZooKeeper listens on a free port picked at each start; the
 * replicas on the ports given (three in a row from the first) or, for port 0, on free ones.
 *
 * <p>{@link #start()} returns once a replica leads. {@link #close()} closes the standbys, then the
 * leader, then ZooKeeper.
 *
 * <p>Thread-safety: thread-safe as a {@link Service}: start once, close from any thread.
 */
final class LocalMdsReplicas implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(LocalMdsReplicas.class);

  static final int REPLICAS = 3;

  /** The file in the cluster's directory that keeps the bookies' ports. */
  static final String PORTS_FILE = "ha.properties";

  /** How long start waits for the replicas to elect a leader. */
  static final Duration LEADER_TIMEOUT = Duration.ofSeconds(30);

  /**
   * One replica, its name and its address (the same for its life: a replica that rejoins as a
   * standby listens where it did).
   */
  record Replica(String id, MdsServer server, HostPort address) {}

  private final BraidConfig config;
  private final Path dir;
  private final int firstPort;
  private final LifeCycle lifeCycle = new LifeCycle("braid local mds replicas");
  private final List<Replica> replicas = new ArrayList<>();
  private volatile @Nullable EmbeddedZooKeeper zk;

  /** A replica whose start has not returned (it closes itself if the start fails). */
  private volatile @Nullable MdsServer starting;

  /**
   * Replicas keeping their data under {@code dir}.
   *
   * @param config every replica's configuration; each one's id, address, store, bookie and
   *     ZooKeeper are set here, and ZooKeeper's address and directory
   * @param firstPort the first replica's port on 127.0.0.1, the others take the next two; 0 picks
   *     free ports
   * @throws IllegalArgumentException if the ports do not fit below 65536
   */
  LocalMdsReplicas(BraidConfig config, Path dir, int firstPort) {
    if (firstPort < 0 || firstPort > 65536 - REPLICAS) {
      throw new IllegalArgumentException(
          "the first MDS port must be from 0 to " + (65536 - REPLICAS) + ": " + firstPort);
    }
    this.config = config;
    this.dir = dir;
    this.firstPort = firstPort;
  }

  /** Replica {@code i}'s (from 1) name and store directory's name. */
  static String id(int i) {
    return "mds-" + i;
  }

  /** Where replica {@code i} (from 1) of a cluster in {@code dir} keeps its store and bookie. */
  static Path replicaDir(Path dir, int i) {
    return dir.resolve(id(i));
  }

  /** Whether {@code dir} holds a {@code braid local --ha} cluster. */
  static boolean isHaCluster(Path dir) {
    return Files.exists(dir.resolve(PORTS_FILE)) || Files.exists(replicaDir(dir, 1));
  }

  /**
   * Starts ZooKeeper, then the replicas, and waits until one leads.
   *
   * @throws IOException if a server cannot start (a port in use, a store locked by another process)
   *     or no replica leads within {@link #LEADER_TIMEOUT}; whatever had started is closed again
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      List<Integer> bookiePorts = bookiePorts();
      EmbeddedZooKeeper z =
          new EmbeddedZooKeeper(
              config.toBuilder()
                  .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
                  .set(ZooKeeperConfigKeys.DIR, dir.resolve("zk").toString())
                  .set(ZooKeeperConfigKeys.SERVERS, List.of())
                  .set(ZooKeeperConfigKeys.ID, 0)
                  .build());
      zk = z;
      z.start();
      for (int i = 1; i <= REPLICAS; i++) {
        MdsServer m = new MdsServer(replicaConfig(i, z.connectString(), bookiePorts.get(i - 1)));
        starting = m;
        m.start(); // returns as a standby; the election follows
        starting = null;
        synchronized (replicas) {
          replicas.add(new Replica(id(i), m, HostPort.of(m.address())));
        }
      }
      Replica leader = awaitLeader();
      lifeCycle.running();
      LOG.info(
          "braid local: {} leads on {} (epoch {}), ZooKeeper {}",
          leader.id(),
          leader.address(),
          leader.server().epoch(),
          z.connectString());
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
  }

  private BraidConfig replicaConfig(int i, String zkConnect, int bookiePort) {
    int port = firstPort == 0 ? 0 : firstPort + i - 1;
    return config.toBuilder()
        .set(MdsConfigKeys.ID, id(i))
        .set(MdsConfigKeys.ADDRESS, "127.0.0.1:" + port)
        .set(MdsStoreConfigKeys.DIR, replicaDir(dir, i).toString())
        .set(MdsHaConfigKeys.ZK, zkConnect)
        .set(MdsHaConfigKeys.EMBEDDED_BOOKIE, true)
        .set(MdsHaConfigKeys.BOOKIE_ADDRESS, "127.0.0.1:" + bookiePort)
        .set(MdsHaConfigKeys.BOOKIE_DIR, "")
        .build();
  }

  /**
   * The bookies' ports: those in {@value #PORTS_FILE}, each checked to be free, or on the first
   * start free ones, written there.
   */
  private List<Integer> bookiePorts() throws IOException {
    Path file = dir.resolve(PORTS_FILE);
    if (!Files.exists(file)) {
      List<Integer> ports = freePorts();
      Properties p = new Properties();
      for (int i = 1; i <= REPLICAS; i++) {
        p.setProperty(bookieKey(i), Integer.toString(ports.get(i - 1)));
      }
      Files.createDirectories(dir);
      // Written to a temporary file and moved, so a crash never leaves half a file behind.
      Path tmp = dir.resolve(PORTS_FILE + ".tmp");
      try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        p.store(
            w,
            " braid local --ha: the port of each replica's bookie on 127.0.0.1, picked on the first"
                + " start.\n A bookie's address is its identity: keep these while its data is"
                + " kept.");
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      return ports;
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    List<Integer> ports = new ArrayList<>();
    for (int i = 1; i <= REPLICAS; i++) {
      int port = parsePort(file, bookieKey(i), p.getProperty(bookieKey(i)));
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      } catch (IOException e) {
        throw new IOException(
            id(i)
                + "'s bookie port 127.0.0.1:"
                + port
                + " (kept in "
                + file
                + ": a bookie's address is its identity) cannot be bound: "
                + e.getMessage(),
            e);
      }
      ports.add(port);
    }
    return ports;
  }

  private static String bookieKey(int i) {
    return id(i) + ".bookie.port";
  }

  private static int parsePort(Path file, String key, @Nullable String value) throws IOException {
    try {
      int port = Integer.parseInt(value == null ? "" : value.trim());
      if (port > 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IOException(file + ": " + key + " is '" + value + "', not a port from 1 to 65535");
  }

  /** Distinct free ports: all held open at once, so none is picked twice. */
  private static List<Integer> freePorts() throws IOException {
    List<ServerSocket> open = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < REPLICAS; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        open.add(s);
        ports.add(s.getLocalPort());
      }
      return ports;
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
    }
  }

  private Replica awaitLeader() throws IOException {
    long deadline = System.nanoTime() + LEADER_TIMEOUT.toNanos();
    while (true) {
      Replica leader = leader();
      if (leader != null) {
        return leader;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(
            "no MDS replica became leader within " + LEADER_TIMEOUT.toSeconds() + " s");
      }
      try {
        // Nothing signals an election's end to another component: poll, briefly.
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while the MDS replicas elect a leader");
      }
    }
  }

  /**
   * The replica that serves the namespace now, or null while none does (an election or a takeover
   * under way). Should two say they lead for a moment, the higher epoch is the leader.
   */
  @Nullable Replica leader() {
    Replica best = null;
    for (Replica r : snapshot()) {
      MdsServer m = r.server();
      long epoch = m.epoch();
      if (m.role() == MdsServer.Role.LEADER
          && epoch > 0
          && (best == null || epoch > best.server().epoch())) {
        best = r;
      }
    }
    return best;
  }

  /** The replicas, in order ({@code mds-1} first). */
  List<Replica> replicas() {
    return snapshot();
  }

  /** The replicas' addresses, in order. */
  List<HostPort> addresses() {
    List<HostPort> out = new ArrayList<>();
    for (Replica r : snapshot()) {
      out.add(r.address());
    }
    return out;
  }

  /** ZooKeeper's connect string. */
  String zooKeeper() {
    EmbeddedZooKeeper z = zk;
    if (z == null) {
      throw new IllegalStateException("braid local is not started");
    }
    return z.connectString();
  }

  private List<Replica> snapshot() {
    synchronized (replicas) {
      return List.copyOf(replicas);
    }
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    MdsServer m = starting;
    if (m != null) {
      m.close(); // closed from another thread (a shutdown hook) while it starts
    }
    // The leader last: closed first, it would make a standby take over only to be closed too.
    Replica leader = leader();
    List<Replica> started = snapshot();
    for (int i = started.size() - 1; i >= 0; i--) {
      if (started.get(i) != leader) {
        started.get(i).server().close();
      }
    }
    if (leader != null) {
      leader.server().close();
    }
    EmbeddedZooKeeper z = zk;
    if (z != null) {
      z.close();
    }
    lifeCycle.closed();
  }

  @Override
  public String toString() {
    return "LocalMdsReplicas[" + dir + "]";
  }
}
