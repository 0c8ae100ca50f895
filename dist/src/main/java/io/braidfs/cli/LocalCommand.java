package io.braidfs.cli;

import io.braidfs.cli.internal.web.DataServerStatus;
import io.braidfs.cli.internal.web.MdsStatus;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.mds.access.MdsSecurityConfigKeys;
import io.braidfs.mds.namespace.NamespaceConfigKeys;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid local}: a whole cluster, one MDS and N data servers, in this process, on loopback,
 * with its data kept under one directory across restarts ({@link LocalCluster}). It runs in the
 * foreground until SIGTERM or Ctrl-C, which close the data servers, then the MDS, and exit 0. With
 * {@code --ha} it runs three MDS replicas and the ZooKeeper that elects their leader instead of the
 * one MDS ({@link LocalMdsReplicas}), so that failover can be seen on one machine.
 *
 * <p>Once every data server has registered it prints, on stdout, the cluster's {@code braid://}
 * URI, how to reach it with {@code braid fs}, Hadoop and Spark, and last a line starting with
 * {@value #READY}, which scripts and tests wait for. With {@code --ha} it also names each replica
 * and its role, ZooKeeper, and how to ask for a failover, and after the ready line it prints a line
 * for each change of leader ({@link LeaderWatch}). Logs go to stderr.
 *
 * <p>Defaults that suit one machine, each overridable with {@code -D} or {@code --conf}: the user
 * who starts it is the superuser (so {@code braid fs} run by the same user may do anything), and
 * the default stripe width and replication are at most the number of data servers.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "local",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs a whole cluster in this process: an MDS and N data servers on 127.0.0.1, with their"
          + " data kept under one directory (DIR/mds, DIR/ds1..dsN) across restarts.",
      "With --ha: three MDS replicas (DIR/mds-1..3) whose leader an embedded ZooKeeper (DIR/zk)"
          + " elects; it prints each change of leader, and touch DIR/failover makes the leader"
          + " hand over.",
      "Prints the braid:// URI and how to reach it, then '" + LocalCommand.READY + " ...'.",
      "Runs until Ctrl-C or SIGTERM. -D, --conf and $BRAID_CONF_DIR's braid.properties and"
          + " local.properties apply to every server; addresses and directories are set by the"
          + " options below. With braid.log.dir (or BRAID_LOG_DIR) it logs to rotating files there."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped on request",
      "1:could not start (port in use, data directory used by another braid local or holding a"
          + " cluster with HA when started without --ha, or the other way round, ...)",
      "2:bad command line or configuration"
    })
final class LocalCommand implements Callable<Integer> {
  /** The start of the last line printed once the cluster serves. */
  static final String READY = "braid local ready";

  /** The most data servers one process runs. */
  static final int MAX_DATA_SERVERS = 64;

  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--data-servers",
      paramLabel = "N",
      defaultValue = "3",
      description = "How many data servers (default: ${DEFAULT-VALUE}).")
  int dataServers = 3;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "Where the cluster keeps its data (default: ~/.braid/local, with --ha"
              + " ~/.braid/local-ha).")
  @Nullable Path data;

  @Option(
      names = "--mds-port",
      paramLabel = "PORT",
      defaultValue = "7400",
      description =
          "The MDS's port on 127.0.0.1 (default: ${DEFAULT-VALUE}); with --ha the first"
              + " replica's, the others take the next two; 0 picks free ones.")
  int mdsPort = 7400;

  @Option(
      names = "--ha",
      description =
          "Run three MDS replicas, their leader elected by a ZooKeeper in this process, instead"
              + " of one MDS.")
  boolean ha;

  @Option(
      names = "--mount",
      paramLabel = "DIR",
      description =
          "Also mount the file system here with FUSE, as braid mount does; the directory is"
              + " created if missing.")
  @Nullable Path mount;

  @Override
  public Integer call() {
    CommandSpec s = spec();
    Path dir = dataDir();
    BraidConfig cfg = configuration(dir);
    String mdsPorts =
        ha && mdsPort != 0 ? mdsPort + "-" + (mdsPort + 2) : Integer.toString(mdsPort);
    String where =
        (ha ? "3 mds replicas 127.0.0.1:" : "mds 127.0.0.1:")
            + mdsPorts
            + ", "
            + dataServers
            + " data servers, data "
            + dir.toString();
    PrintWriter out = s.commandLine().getOut();
    Consumer<String> events =
        line -> {
          out.println(line);
          out.flush();
        };
    if (mount != null) {
      // Unlike braid mount (and mount(8)), the one-command local setup makes its mount point.
      if (!Files.exists(mount)) {
        try {
          Files.createDirectories(mount);
        } catch (IOException e) {
          s.commandLine()
              .getErr()
              .println(
                  s.qualifiedName()
                      + ": --mount "
                      + mount
                      + ": cannot create the directory ("
                      + e
                      + ")");
          return Braid.EXIT_FAILURE;
        }
      }
    }
    // Two braid local on one host differ in their MDS port, unless the system picks it.
    String logId = mdsPort != 0 ? Integer.toString(mdsPort) : "pid" + ProcessHandle.current().pid();
    ServerLogs logs = ServerLogs.startFor(cfg, s, "local", logId, true);
    if (logs == null) {
      return Braid.EXIT_FAILURE;
    }
    try (logs) {
      return serve(s, cfg, dir, where, events);
    }
  }

  private int serve(
      CommandSpec s, BraidConfig cfg, Path dir, String where, Consumer<String> events) {
    ServerMetrics.Started started = ServerMetrics.startFor(cfg, s);
    if (started.failed()) {
      return Braid.EXIT_FAILURE;
    }
    ServerMetrics metrics = started.metrics();
    LocalCluster cluster = new LocalCluster(cfg, dir, dataServers, ha, events);
    cluster.observe(ServerMetrics.observer(metrics));
    if (metrics != null) {
      metrics
          .status()
          .attach(new MdsStatus(cluster::leadingMds, cfg.get(MdsSecurityConfigKeys.SUPERUSER)));
      metrics
          .status()
          .attach(new DataServerStatus(cluster::dataServers, cluster::mdsAddressesIfStarted));
      metrics.gauges().watchMds(cluster::mdsServers);
      metrics.gauges().watchDataServers(cluster::dataServers);
    }
    try (metrics) {
      if (mount != null) {
        return LocalMount.run(
            s.commandLine(), s.qualifiedName(), where, cluster, mount, parent().stopSignal());
      }
      return Foreground.run(
          s,
          where,
          "choose other ports with --mds-port",
          cluster,
          LocalCommand::readyText,
          parent().stopSignal());
    }
  }

  /** The data directory, absolute. */
  Path dataDir() {
    // Apart by default: a directory holds a cluster of one kind (LocalCluster refuses the other).
    Path d =
        data != null
            ? data
            : Path.of(System.getProperty("user.home"), ".braid", ha ? "local-ha" : "local");
    return d.toAbsolutePath().normalize();
  }

  /**
   * Every server's configuration: braid local's defaults, the file, {@code -D}, then the MDS
   * address and store from the options.
   *
   * @throws ParameterException if an option or any configuration is invalid
   */
  BraidConfig configuration(Path dir) {
    CommandSpec s = spec();
    if (dataServers < 1 || dataServers > MAX_DATA_SERVERS) {
      throw new ParameterException(
          s.commandLine(),
          "--data-servers: " + dataServers + " is not from 1 to " + MAX_DATA_SERVERS);
    }
    int maxPort = ha ? 65536 - LocalMdsReplicas.REPLICAS : 65535;
    if (mdsPort < 0 || mdsPort > maxPort) {
      throw new ParameterException(
          s.commandLine(),
          "--mds-port: "
              + mdsPort
              + " is not from 0 to "
              + maxPort
              + (ha ? " (with --ha the replicas take it and the next two)" : ""));
    }
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put(MdsSecurityConfigKeys.SUPERUSER.name(), System.getProperty("user.name", "root"));
    defaults.put(
        NamespaceConfigKeys.STRIPE_WIDTH.name(), Integer.toString(Math.min(4, dataServers)));
    defaults.put(
        NamespaceConfigKeys.REPLICATION.name(), Integer.toString(Math.min(3, dataServers)));
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put(MdsConfigKeys.ADDRESS.name(), "127.0.0.1:" + mdsPort);
    flags.put(MdsStoreConfigKeys.DIR.name(), LocalCluster.mdsDir(dir).toString());
    return config.load(s.commandLine(), defaults, flags);
  }

  /** What braid local prints once it serves: the URI, how to reach it, then the ready line. */
  static String readyText(LocalCluster c) {
    List<String> addresses = new ArrayList<>();
    for (HostPort a : c.mdsAddresses()) {
      addresses.add(a.toString());
    }
    String authority = String.join(",", addresses);
    String command = System.getProperty("braid.command", "braid");
    String hadoopJar = hadoopJar();
    String nl = System.lineSeparator();
    LocalMdsReplicas replicas = c.replicas();
    StringBuilder b = new StringBuilder("braid local: ");
    b.append(replicas == null ? "an MDS" : LocalMdsReplicas.REPLICAS + " MDS replicas")
        .append(" and ")
        .append(c.dataServerCount())
        .append(" data servers, data in ")
        .append(c.dir())
        .append(nl);
    if (replicas != null) {
      appendReplicas(b, replicas, nl);
    }
    b.append("  URI:    braid://").append(authority).append('/').append(nl);
    b.append("  Files:  ").append(command).append(" fs --mds ").append(authority).append(" ls /");
    b.append(nl);
    b.append("  Hadoop: HADOOP_CLASSPATH=")
        .append(hadoopJar)
        .append(" hadoop fs -Dfs.defaultFS=braid://")
        .append(authority)
        .append("/ -ls /")
        .append(nl);
    b.append("  Spark:  spark-submit --jars ")
        .append(hadoopJar)
        .append(" --conf spark.hadoop.fs.defaultFS=braid://")
        .append(authority)
        .append("/ ...")
        .append(nl);
    LeaderWatch watch = c.watch();
    if (watch != null) {
      b.append("  Failover: touch ")
          .append(watch.trigger())
          .append(" (the leader hands over; each change of leader is printed below)")
          .append(nl);
    }
    return b.append(READY).append(" (Ctrl-C or SIGTERM stops it)").toString();
  }

  /** One line per replica (its name, address and role), then ZooKeeper's. */
  private static void appendReplicas(StringBuilder b, LocalMdsReplicas replicas, String nl) {
    for (LocalMdsReplicas.Replica r : replicas.replicas()) {
      b.append("  MDS:    ")
          .append(r.id())
          .append(' ')
          .append(r.address())
          .append(' ')
          .append(role(r.server()))
          .append(nl);
    }
    b.append("  ZK:     ").append(replicas.zooKeeper()).append(" (elects the leader)").append(nl);
  }

  /** A replica's role as the ready text shows it: {@code leader (epoch 3)}, {@code standby}. */
  private static String role(MdsServer m) {
    MdsServer.Role role = m.role();
    if (role == MdsServer.Role.LEADER) {
      return "leader (epoch " + m.epoch() + ")";
    }
    return role.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  /**
   * The shaded braid:// jar of this installation: {@code hadoop/} beside the {@code lib/} that
   * holds this command's jars (the tarball's layout); a description when not run from a tarball.
   */
  static String hadoopJar() {
    for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      Path lib = Path.of(entry).toAbsolutePath().normalize().getParent();
      if (lib == null || lib.getParent() == null || !lib.endsWith("lib")) {
        continue;
      }
      Path hadoop = lib.getParent().resolve("hadoop");
      try (var jars = Files.list(hadoop)) {
        Optional<Path> shaded =
            jars.filter(j -> j.getFileName().toString().endsWith("-shaded.jar")).findFirst();
        if (shaded.isPresent()) {
          return shaded.get().toString();
        }
      } catch (IOException e) {
        // not a tarball's lib/: look on
      }
    }
    return "fs-hadoop-VERSION-shaded.jar";
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
