package io.braidfs.mds.zk;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.HostPort;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.server.DatadirCleanupManager;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper server running in this JVM, configured by {@link ZooKeeperConfigKeys}: a
 * standalone server when {@code braid.zk.servers} is empty, otherwise member {@code braid.zk.id} of
 * that ensemble. It is ZooKeeper's own server ({@link ZooKeeperServerMain} or {@link
 * QuorumPeerMain}), run on a thread of its own from a {@value #ZOO_CFG} that this class writes to
 * the data directory on every start; this class adds the Braid life cycle, clear start failures and
 * a lock on the data directory. It serves {@code braid zk} and the ZooKeeper that {@code braid
 * local --ha} embeds; a production cluster points its MDSs at its own ensemble instead.
 *
 * <pre>{@code
 * BraidConfig cfg = BraidConfig.builder()
 *     .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
 *     .set(ZooKeeperConfigKeys.DIR, "/var/lib/braid/zk")
 *     .build();
 * try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(cfg)) {
 *   zk.start();                       // returns once the client port listens
 *   String connect = zk.connectString();
 * }
 * }</pre>
 *
 * <p>Settings beyond the keys: sessions may last from 2 to 20 ticks (ZooKeeper's defaults, so 1 s
 * to 10 s with the default 500 ms tick); ensemble members must sync within {@value
 * #SYNC_LIMIT_TICKS} ticks, and within {@value #INIT_LIMIT_TICKS} when one joins; the admin HTTP
 * server is off; the four-letter words {@value #FOUR_LETTER_WORDS} are answered; old snapshots and
 * logs are purged hourly, keeping the last {@value #SNAPSHOTS_KEPT} snapshots. ZooKeeper reads the
 * last two settings from system properties ({@code zookeeper.admin.enableServer}, {@code
 * zookeeper.4lw.commands.whitelist}), so {@link #start()} sets those for the whole JVM.
 *
 * <p>{@link #start()} returns once the client port listens: a standalone server then serves; an
 * ensemble member serves once a quorum of members has elected a leader. A server can be closed and
 * a new one started on the same directory; it comes back with everything that was written. Two
 * servers never share a directory: the second fails to start. ZooKeeper itself ends the JVM when an
 * ensemble member cannot bind its election port after it started; {@link #start()} checks both
 * member ports first so that the usual cause, a port in use, fails the start instead.
 *
 * <p>Threads: {@code braid-zk-main} (or {@code braid-zk-N-main} for member N) runs the server;
 * ZooKeeper's own threads do the work.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class EmbeddedZooKeeper implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

  /** Ticks a member may lag behind the leader. */
  static final int SYNC_LIMIT_TICKS = 10;

  /** Ticks a joining member has to connect to the leader and catch up. */
  static final int INIT_LIMIT_TICKS = 20;

  /** The four-letter words answered on the client port: health and statistics only. */
  static final String FOUR_LETTER_WORDS = "ruok,srvr,stat,mntr";

  static final int SNAPSHOTS_KEPT = 3;

  /** The configuration file ZooKeeper reads, written to the data directory on every start. */
  static final String ZOO_CFG = "zoo.cfg";

  /** The file in the data directory whose lock marks it as in use. */
  static final String LOCK_FILE = "braid-zk.lock";

  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final String name;
  private final HostPort address;
  private final Path dir;
  private final Duration tick;
  private final int maxClientConnections;
  private final List<EnsembleMember> members;
  private final int id;
  private final LifeCycle lifeCycle;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  // Written by start(), read by close() and the accessors; volatile because close() may run on
  // another thread (a shutdown hook).
  private volatile @Nullable FileChannel lockChannel;
  private volatile @Nullable Runner runner;
  private volatile @Nullable Thread thread;
  private volatile @Nullable DatadirCleanupManager purger;
  private volatile @Nullable String connectString;
  private volatile int boundPort;

  /**
   * A server configured by {@code config} (braid.zk.*); nothing runs until {@link #start()}.
   *
   * @throws IllegalArgumentException naming the key if the address, the ensemble or the id is
   *     invalid
   */
  public EmbeddedZooKeeper(BraidConfig config) {
    String addressText = config.get(ZooKeeperConfigKeys.ADDRESS);
    try {
      this.address = HostPort.parse(addressText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ZooKeeperConfigKeys.ADDRESS.name() + ": " + e.getMessage(), e);
    }
    this.dir = Path.of(config.get(ZooKeeperConfigKeys.DIR)).toAbsolutePath().normalize();
    this.tick = config.get(ZooKeeperConfigKeys.TICK);
    this.maxClientConnections = config.get(ZooKeeperConfigKeys.MAX_CLIENT_CONNECTIONS);
    try {
      this.members = EnsembleMember.parseAll(config.get(ZooKeeperConfigKeys.SERVERS));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ZooKeeperConfigKeys.SERVERS.name() + ": " + e.getMessage(), e);
    }
    this.id = config.get(ZooKeeperConfigKeys.ID);
    checkEnsemble();
    this.name = members.isEmpty() ? "zk" : "zk-" + id;
    this.lifeCycle = new LifeCycle(name);
  }

  private void checkEnsemble() {
    String servers = ZooKeeperConfigKeys.SERVERS.name();
    String idKey = ZooKeeperConfigKeys.ID.name();
    if (members.isEmpty()) {
      if (id != 0) {
        throw new IllegalArgumentException(
            idKey + " is " + id + " but " + servers + " is empty: a standalone server has no id");
      }
      return;
    }
    if (members.size() == 1) {
      throw new IllegalArgumentException(
          servers
              + " lists one member: an ensemble has at least 2, and 3 to survive losing one"
              + " (leave it empty for a standalone server)");
    }
    if (id == 0) {
      throw new IllegalArgumentException(
          idKey + " is not set: name this member's N in " + servers + " " + members);
    }
    if (self() == null) {
      throw new IllegalArgumentException(
          idKey + " is " + id + ", which is not a member of " + servers + " " + members);
    }
  }

  private @Nullable EnsembleMember self() {
    for (EnsembleMember m : members) {
      if (m.id() == id) {
        return m;
      }
    }
    return null;
  }

  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      startServer();
      if (!lifeCycle.running()) {
        throw new IOException(name + ": closed while starting");
      }
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
    LOG.info(
        "{}: serving {} ({}, data {}, tick {} ms, max client connections {})",
        name,
        connectString,
        mode(),
        dir,
        tick.toMillis(),
        maxClientConnections);
  }

  private void startServer() throws IOException {
    prepareDirectory();
    lock();
    if (members.isEmpty()) {
      refuseMemberData();
    } else {
      writeMyId();
      checkMemberPorts();
    }
    QuorumPeerConfig config = zooKeeperConfig();
    DatadirCleanupManager p =
        new DatadirCleanupManager(
            config.getDataDir(),
            config.getDataLogDir(),
            config.getSnapRetainCount(),
            config.getPurgeInterval());
    purger = p;
    p.start();

    CompletableFuture<Integer> started = new CompletableFuture<>();
    Runner r = members.isEmpty() ? new Standalone(started) : new Member(started);
    runner = r;
    Thread t = new Thread(() -> run(r, config, started), "braid-" + name + "-main");
    thread = t;
    t.start();
    boundPort = awaitStarted(started);
    String host = address.host();
    // A wildcard bind serves every interface; clients on this host reach it on the loopback.
    if (InetAddress.getByName(host).isAnyLocalAddress()) {
      host = InetAddress.getLoopbackAddress().getHostAddress();
    }
    connectString = new HostPort(host, boundPort).toString();
  }

  private void prepareDirectory() throws IOException {
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new IOException("ZooKeeper data dir " + dir + " is not a directory", e);
    } catch (AccessDeniedException e) {
      throw new IOException(
          "cannot create ZooKeeper data dir " + dir + ": permission denied on " + e.getFile(), e);
    } catch (FileSystemException e) {
      String why = e.getReason() != null ? e.getReason() : e.toString();
      throw new IOException("cannot create ZooKeeper data dir " + dir + ": " + why, e);
    }
    if (!Files.isWritable(dir)) {
      throw new IOException("ZooKeeper data dir " + dir + " is not writable");
    }
  }

  /** Takes the directory's lock, so that a second server on it fails instead of corrupting it. */
  private void lock() throws IOException {
    FileChannel channel =
        FileChannel.open(
            dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by another server of this JVM
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new IOException(
          "ZooKeeper data dir "
              + dir
              + " is in use by another ZooKeeper server ("
              + LOCK_FILE
              + ")");
    }
    lockChannel = channel;
  }

  /**
   * A standalone server must not start on an ensemble member's data: it would fork the ensemble's
   * history.
   */
  private void refuseMemberData() throws IOException {
    Path myid = dir.resolve("myid");
    if (Files.exists(myid)) {
      throw new IOException(
          "ZooKeeper data dir "
              + dir
              + " holds ensemble member "
              + Files.readString(myid, StandardCharsets.US_ASCII).strip()
              + "'s data (myid): set "
              + ZooKeeperConfigKeys.SERVERS.name()
              + " and "
              + ZooKeeperConfigKeys.ID.name()
              + ", or use another directory");
    }
  }

  /**
   * Writes this member's id to {@code myid}, where ZooKeeper reads it, and refuses a directory that
   * holds another member's data or a standalone server's.
   */
  private void writeMyId() throws IOException {
    Path myid = dir.resolve("myid");
    if (Files.exists(myid)) {
      String existing = Files.readString(myid, StandardCharsets.US_ASCII).strip();
      if (!existing.equals(Integer.toString(id))) {
        throw new IOException(
            "ZooKeeper data dir "
                + dir
                + " holds ensemble member "
                + existing
                + "'s data (myid), not member "
                + id
                + "'s");
      }
      return;
    }
    if (Files.exists(dir.resolve("version-2"))) {
      throw new IOException(
          "ZooKeeper data dir "
              + dir
              + " holds a standalone server's data; an ensemble member starts on an empty one");
    }
    Files.writeString(myid, id + "\n", StandardCharsets.US_ASCII);
  }

  /**
   * Binds and frees this member's peer and election ports: ZooKeeper ends the JVM when it cannot
   * bind its election port, so a port in use must fail here, as a start failure.
   */
  private void checkMemberPorts() throws IOException {
    EnsembleMember me = self();
    if (me == null) {
      throw new IllegalStateException(name + ": not a member"); // checked by the constructor
    }
    for (int port : new int[] {me.peerPort(), me.electionPort()}) {
      InetSocketAddress a = new InetSocketAddress(me.host(), port);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(a);
      } catch (IOException e) {
        throw new IOException(
            "ensemble member " + id + " cannot listen on " + HostPort.of(a) + ": " + e.getMessage(),
            e);
      }
    }
  }

  /**
   * Writes {@value #ZOO_CFG} to the data directory and has ZooKeeper parse it, exactly as {@code
   * zkServer.sh} would: ZooKeeper's quorum code expects its configuration in a file, and an
   * operator can read there what the server runs with.
   */
  private QuorumPeerConfig zooKeeperConfig() throws IOException {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("dataDir", dir.toString());
    p.put("clientPortAddress", address.host());
    p.put("clientPort", Integer.toString(address.port()));
    p.put("tickTime", Long.toString(tick.toMillis()));
    p.put("maxClientCnxns", Integer.toString(maxClientConnections));
    p.put("autopurge.snapRetainCount", Integer.toString(SNAPSHOTS_KEPT));
    p.put("autopurge.purgeInterval", "1");
    // Unknown to QuorumPeerConfig, so it sets them as system properties zookeeper.<name>.
    p.put("admin.enableServer", "false");
    p.put("4lw.commands.whitelist", FOUR_LETTER_WORDS);
    if (!members.isEmpty()) {
      p.put("initLimit", Integer.toString(INIT_LIMIT_TICKS));
      p.put("syncLimit", Integer.toString(SYNC_LIMIT_TICKS));
      for (EnsembleMember m : members) {
        p.put("server." + m.id(), m.zooCfgValue());
      }
    }
    StringBuilder text =
        new StringBuilder(
            "# Written by Braid from braid.zk.* each time the server starts; edits are lost.\n");
    p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path file = dir.resolve(ZOO_CFG);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    QuorumPeerConfig config = new QuorumPeerConfig();
    try {
      config.parse(file.toString());
    } catch (QuorumPeerConfig.ConfigException e) {
      // Its message only names the file; the reason is in the cause.
      Throwable why = e.getCause() != null ? e.getCause() : e;
      throw new IOException(
          name + ": ZooKeeper refused its configuration " + file + ": " + why.getMessage(), e);
    }
    return config;
  }

  /** The body of the server thread: runs the server until it is closed or fails. */
  private void run(Runner r, QuorumPeerConfig config, CompletableFuture<Integer> started) {
    try {
      r.run(config);
    } catch (Throwable t) { // the top of this thread: whatever ended the server is reported
      if (!started.completeExceptionally(t)) {
        LOG.error("{}: ZooKeeper failed", name, t);
      }
    } finally {
      if (started.completeExceptionally(new IOException(name + ": stopped before it served"))) {
        LOG.debug("{}: stopped before it served", name);
      } else if (lifeCycle.isRunning()) {
        LOG.error("{}: ZooKeeper stopped on its own; see the log above for why", name);
      }
      stopped.complete(null);
    }
  }

  private int awaitStarted(CompletableFuture<Integer> started) throws IOException {
    try {
      return started.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(name + ": ZooKeeper failed to start: " + cause, cause);
    } catch (TimeoutException e) {
      throw new IOException(
          name + ": ZooKeeper did not start within " + START_TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(name + ": interrupted while starting");
    }
  }

  /**
   * The connect string of this server, {@code host:port} with the bound port: the configured host,
   * or the loopback address when it binds every interface. An ensemble's clients list every
   * member's.
   *
   * @throws IllegalStateException if the server is not running
   */
  public String connectString() {
    lifeCycle.assertRunning();
    String s = connectString;
    if (s == null) {
      throw new IllegalStateException(name + ": not started");
    }
    return s;
  }

  /**
   * The address the client port is bound to: the configured host and the bound port.
   *
   * @throws IllegalStateException if the server is not running
   */
  public InetSocketAddress address() {
    lifeCycle.assertRunning();
    return new InetSocketAddress(address.host(), boundPort);
  }

  /** The data directory, absolute. */
  public Path dir() {
    return dir;
  }

  /** {@code standalone}, or {@code member N of M} for an ensemble member. */
  public String mode() {
    return members.isEmpty() ? "standalone" : "member " + id + " of " + members.size();
  }

  /**
   * Completes when the server has stopped: after {@link #close()}, or on its own when ZooKeeper hit
   * an error it does not survive (it has logged why). The command that runs the server waits for it
   * as well as for a stop request.
   */
  public CompletableFuture<Void> whenStopped() {
    return stopped;
  }

  /**
   * Stops the server: closes the client port (sessions end; clients reconnect to another member or
   * to the next server on this directory), writes nothing more, waits up to 30 s for ZooKeeper's
   * thread, and releases the directory's lock.
   */
  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    Runner r = runner;
    if (r != null) {
      r.stop();
    }
    Thread t = thread;
    if (t != null) {
      try {
        t.join(STOP_TIMEOUT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        LOG.warn("{}: ZooKeeper did not stop within {} s", name, STOP_TIMEOUT.toSeconds());
      }
    }
    DatadirCleanupManager p = purger;
    if (p != null) {
      p.shutdown();
    }
    FileChannel channel = lockChannel;
    if (channel != null) {
      try {
        channel.close(); // releases the lock
      } catch (IOException e) {
        LOG.warn("{}: closing {}: {}", name, LOCK_FILE, e.toString());
      }
    }
    stopped.complete(null);
    lifeCycle.closed();
    LOG.info("{}: stopped", name);
  }

  @Override
  public String toString() {
    return name + " (" + mode() + ", " + lifeCycle.state() + ")";
  }

  /** One way of running ZooKeeper's server on the calling thread. */
  private interface Runner {
    /** Runs the server until {@link #stop()}; completes the start future once it listens. */
    void run(QuorumPeerConfig config) throws Exception;

    /** Asks {@link #run} to return; never throws. */
    void stop();
  }

  /** A standalone server: ZooKeeper's own {@code zkServer.sh start} without a quorum. */
  private static final class Standalone extends ZooKeeperServerMain implements Runner {
    private final CompletableFuture<Integer> started;

    Standalone(CompletableFuture<Integer> started) {
      this.started = started;
    }

    @Override
    public void run(QuorumPeerConfig config) throws Exception {
      ServerConfig server = new ServerConfig();
      server.readFrom(config);
      runFromConfig(server);
    }

    @Override
    protected void serverStarted() {
      started.complete(getClientPort());
    }

    /**
     * Closes the client port, which shuts the server down and so ends {@link #runFromConfig}.
     * Unlike {@link ZooKeeperServerMain#close()}, which waits for {@link #runFromConfig} to close
     * the port, this also frees a port that a failed {@link #runFromConfig} left open.
     */
    @Override
    public void stop() {
      shutdown();
    }
  }

  /** An ensemble member: ZooKeeper's own quorum peer. */
  private static final class Member extends QuorumPeerMain implements Runner {
    private final CompletableFuture<Integer> started;

    Member(CompletableFuture<Integer> started) {
      this.started = started;
    }

    @Override
    public void run(QuorumPeerConfig config) throws Exception {
      runFromConfig(config);
    }

    @Override
    protected QuorumPeer getQuorumPeer() throws SaslException {
      return new QuorumPeer() {
        @Override
        public synchronized void start() {
          super.start(); // returns once the client port listens and the election has begun
          started.complete(getClientPort());
        }
      };
    }

    @Override
    public void stop() {
      close();
    }
  }
}
