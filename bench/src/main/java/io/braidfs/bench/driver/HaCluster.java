package io.braidfs.bench.driver;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The MDS processes of experiment 11, each a {@link BraidProcess} on loopback with its files under
 * one directory: either three HA replicas ({@code braid mds --zk --id N}, each with its embedded
 * bookie) and the ZooKeeper that elects their leader ({@code braid zk}), or one MDS alone ({@code
 * braid mds} without {@code --zk}). No data servers: directories and empty files need none.
 *
 * <p>Every replica keeps its RPC and bookie ports across restarts (chosen free at the start), since
 * the client lists the three addresses once, as a deployment's clients do.
 *
 * <p>Thread-safety: not thread-safe; the experiment's thread drives it.
 */
final class HaCluster implements AutoCloseable {
  static final Pattern LISTENING = Pattern.compile("braid mds listening on (\\S+):(\\d+) ");
  static final Pattern ZK_SERVING = Pattern.compile("braid zk: serving (\\S+) \\(");

  /** HaReplica's line once it serves as leader. */
  static final Pattern LEADING =
      Pattern.compile(": leading with epoch (\\d+) from record \\d+ in ledger \\d+ \\((\\d+) ms");

  static final int REPLICAS = 3;

  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  /** JVM options of each MDS; -Xmx keeps several JVMs within a shared machine's memory. */
  static final List<String> MDS_JVM = List.of("-Xmx1g");

  private static final List<String> ZK_JVM = List.of("-Xmx256m");

  private final Path dir;
  private final Map<String, String> settings;
  private final boolean ha;
  private final Path log4j;
  private final int[] ports;
  private final int[] bookiePorts;
  private final @Nullable BraidProcess[] replicas;
  private final List<BraidClient> clients = new ArrayList<>();
  private @Nullable BraidProcess zk;
  private String zkConnect = "";

  private HaCluster(Path dir, boolean ha, Map<String, String> settings) throws IOException {
    this.dir = dir;
    this.ha = ha;
    this.settings = Map.copyOf(settings);
    int n = ha ? REPLICAS : 1;
    this.ports = new int[n];
    this.bookiePorts = new int[n];
    this.replicas = new BraidProcess[n];
    this.log4j = writeLog4j(dir);
  }

  /**
   * Three replicas and their ZooKeeper in {@code dir}, started, with a leader serving; {@code
   * settings} go to every replica ({@code -D}).
   */
  static HaCluster startReplicas(Path dir, Map<String, String> settings)
      throws IOException, InterruptedException {
    HaCluster c = new HaCluster(dir, true, settings);
    try {
      c.startZooKeeper();
      for (int i = 0; i < REPLICAS; i++) {
        c.ports[i] = freePort();
        c.bookiePorts[i] = freePort();
        c.launch(i);
      }
      for (int i = 0; i < REPLICAS; i++) {
        c.awaitListening(i, 0);
      }
      c.awaitLeader(0, START_TIMEOUT);
      return c;
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** One MDS alone, without ZooKeeper (its journal the RocksDB WAL), in {@code dir}. */
  static HaCluster startSingle(Path dir, Map<String, String> settings)
      throws IOException, InterruptedException {
    HaCluster c = new HaCluster(dir, false, settings);
    try {
      c.ports[0] = freePort();
      c.launch(0);
      c.awaitListening(0, 0);
      return c;
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private void startZooKeeper() throws IOException, InterruptedException {
    BraidProcess z =
        BraidProcess.start(
            "zk",
            dir.resolve("logs").resolve("zk.log"),
            log4j,
            ZK_JVM,
            List.of("zk", "--address", "127.0.0.1:0", "--dir", dir.resolve("zk").toString()));
    zk = z;
    zkConnect = z.await(ZK_SERVING, 0, START_TIMEOUT).group(1);
  }

  private void launch(int i) throws IOException {
    String name = ha ? "mds" + (i + 1) : "mds";
    List<String> args = new ArrayList<>();
    args.add("mds");
    if (ha) {
      args.addAll(List.of("--zk", zkConnect, "--id", Integer.toString(i + 1)));
      args.addAll(List.of("-D", "braid.mds.ha.bookie.address=127.0.0.1:" + bookiePorts[i]));
    }
    args.addAll(List.of("--address", "127.0.0.1:" + ports[i]));
    args.addAll(List.of("--dir", dir.resolve(name).toString()));
    settings.forEach((k, v) -> args.addAll(List.of("-D", k + "=" + v)));
    replicas[i] =
        BraidProcess.start(name, dir.resolve("logs").resolve(name + ".log"), log4j, MDS_JVM, args);
  }

  /** Waits for replica {@code i}'s "listening" line read after {@code afterNanos}; its time. */
  private long awaitListening(int i, long afterNanos) throws IOException, InterruptedException {
    return replica(i).await(LISTENING, afterNanos, START_TIMEOUT).nanos();
  }

  /** The MDS addresses, as clients list them. */
  List<String> addresses() {
    List<String> a = new ArrayList<>();
    for (int p : ports) {
      a.add("127.0.0.1:" + p);
    }
    return a;
  }

  /**
   * A client of this cluster listing every replica, acting as root (the MDS's superuser), with
   * {@code clientSettings} ({@code braid.client.*}); closed with the cluster.
   */
  BraidClient client(Map<String, String> clientSettings) throws IOException {
    Map<String, String> c = new HashMap<>(clientSettings);
    c.put(ClientConfigKeys.MDS.name(), String.join(",", addresses()));
    BraidClient b =
        BraidClient.builder(BraidConfig.fromMap(c))
            .user("root")
            .groups(List.of("root"))
            .name("bench-exp11")
            .build();
    clients.add(b);
    return b;
  }

  /** The replica leading, by its log: its index, epoch and takeover time. */
  record Leader(int index, long epoch, long takeoverMillis, long lineNanos) {}

  /** The running replica that said last it leads, with the highest epoch; null if none. */
  @Nullable Leader leader() {
    Leader best = null;
    for (int i = 0; i < replicas.length; i++) {
      BraidProcess p = replicas[i];
      if (p == null || !p.alive()) {
        continue;
      }
      BraidProcess.Matched m = p.last(LEADING);
      if (m == null) {
        continue;
      }
      long epoch = Long.parseLong(m.group(1));
      if (best == null || epoch > best.epoch()) {
        best = new Leader(i, epoch, Long.parseLong(m.group(2)), m.nanos());
      }
    }
    return best;
  }

  /**
   * Waits until a replica leads with an epoch above {@code afterEpoch}.
   *
   * @throws IOException if none does within {@code timeout}, naming the logs
   */
  Leader awaitLeader(long afterEpoch, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Leader l = leader();
      if (l != null && l.epoch() > afterEpoch) {
        return l;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "no MDS replica leads with an epoch above "
                + afterEpoch
                + " within "
                + timeout
                + "; see the logs in "
                + dir.resolve("logs"));
      }
      Thread.sleep(10);
    }
  }

  /**
   * Kills replica {@code i} with SIGKILL and waits until it is gone.
   *
   * @return when it was found gone ({@link System#nanoTime()})
   */
  long kill(int i) throws IOException, InterruptedException {
    return replica(i).kill();
  }

  /**
   * Starts replica {@code i} again on its ports and directory (it rejoins as a standby) and waits
   * until it listens.
   *
   * @return when it listened ({@link System#nanoTime()})
   */
  long restart(int i) throws IOException, InterruptedException {
    BraidProcess old = replica(i);
    if (old.alive()) {
      throw new IllegalStateException(old.name() + " still runs");
    }
    long t0 = System.nanoTime();
    launch(i);
    return awaitListening(i, t0);
  }

  /** CPU a role's processes have used so far. */
  record Cpu(long serving, long standbys, long zooKeeper) {}

  /**
   * CPU nanoseconds used so far by the MDS serving (the leader, or the MDS alone), the standbys
   * together, and ZooKeeper (0 for a cluster without one).
   *
   * @throws IOException if no replica leads
   */
  Cpu cpu() throws IOException {
    int serving = 0;
    if (ha) {
      Leader l = leader();
      if (l == null) {
        throw new IOException("no MDS replica leads; see the logs in " + logs());
      }
      serving = l.index();
    }
    long standbys = 0;
    for (int i = 0; i < replicas.length; i++) {
      if (i != serving) {
        standbys += Math.max(0, ProcCpu.nanos(replica(i).pid()));
      }
    }
    BraidProcess z = zk;
    return new Cpu(
        ProcCpu.nanos(replica(serving).pid()),
        standbys,
        z == null ? 0 : Math.max(0, ProcCpu.nanos(z.pid())));
  }

  /** Whether replica {@code i}'s process runs. */
  boolean running(int i) {
    return replica(i).alive();
  }

  /** Replica {@code i}'s exit code, or -1 while it runs. */
  int exitCode(int i) {
    return replica(i).exitCode();
  }

  String name(int i) {
    return replica(i).name();
  }

  Path log(int i) {
    return replica(i).log();
  }

  Path logs() {
    return dir.resolve("logs");
  }

  private BraidProcess replica(int i) {
    BraidProcess p = replicas[i];
    if (p == null) {
      throw new IllegalStateException("replica " + i + " was never started");
    }
    return p;
  }

  /**
   * The child JVMs' logging (reload4j, on this class path): Braid's INFO lines (the leader's
   * "leading with epoch" among them), others' warnings; BookKeeper's expected errors while bookies
   * come and go quieted, as dist's logback.xml does.
   */
  private static Path writeLog4j(Path dir) throws IOException {
    Path f = dir.resolve("log4j.properties");
    Files.createDirectories(dir);
    Files.writeString(
        f,
        String.join(
            "\n",
            "log4j.rootLogger=WARN,err",
            "log4j.logger.io.braidfs=INFO",
            "log4j.logger.braid.audit=OFF",
            "log4j.logger.org.apache.zookeeper.server.ServerCnxnFactory=ERROR",
            "log4j.logger.org.apache.bookkeeper.client.LedgerCreateOp=OFF",
            "log4j.logger.org.apache.bookkeeper.client.RackawareEnsemblePlacementPolicyImpl=ERROR",
            "log4j.logger.org.apache.bookkeeper.proto.PerChannelBookieClient=OFF",
            "log4j.logger.org.apache.bookkeeper.proto.WriteEntryProcessorV3=OFF",
            "log4j.appender.err=org.apache.log4j.ConsoleAppender",
            "log4j.appender.err.Target=System.err",
            "log4j.appender.err.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.err.layout.ConversionPattern=%d{HH:mm:ss,SSS} %p %c{1}: %m%n",
            ""),
        StandardCharsets.UTF_8);
    return f;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Closes the clients, then stops every replica, then ZooKeeper (SIGTERM, then SIGKILL). */
  @Override
  public void close() throws InterruptedException {
    for (BraidClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        System.err.println("braid bench: closing a client of exp11: " + e);
      }
    }
    clients.clear();
    // All at once: stopping the leader alone first would only make another take over.
    for (BraidProcess p : replicas) {
      if (p != null) {
        p.terminate();
      }
    }
    for (BraidProcess p : replicas) {
      if (p != null) {
        p.close();
      }
    }
    BraidProcess z = zk;
    if (z != null) {
      z.close();
    }
  }
}
