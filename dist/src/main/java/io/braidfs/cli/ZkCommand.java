package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.mds.zk.EmbeddedZooKeeper;
import io.braidfs.mds.zk.ZooKeeperConfigKeys;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid zk}: runs a ZooKeeper server in the foreground until SIGTERM or Ctrl-C, for the MDS
 * replicas of a single host or a small deployment; a production cluster uses its own ensemble.
 *
 * <p>Once it serves, it prints exactly one line to stdout, {@code braid zk: serving HOST:PORT
 * (standalone, data DIR)} (or {@code member N of M} for an ensemble member), with the bound port
 * (when configured with port 0) and the data directory's absolute path; tests and scripts wait for
 * it. Everything else goes to the log on stderr, where ZooKeeper's own classes say only warnings
 * and errors.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "zk",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs a ZooKeeper server in the foreground until stopped (SIGTERM or Ctrl-C), for the MDS"
          + " replicas of one host or a small deployment; production uses its own ensemble.",
      "Standalone unless braid.zk.servers lists an ensemble (N=host:peerPort:electionPort,...),"
          + " of which this server is member --id N.",
      "Prints 'braid zk: serving HOST:PORT (standalone, data DIR)' once it serves.",
      "Configuration: the flags override -D, which overrides --conf, which overrides"
          + " $BRAID_CONF_DIR/zk.properties, which overrides $BRAID_CONF_DIR/braid.properties,"
          + " which overrides the defaults (docs/configuration.md).",
      "Logs: to stderr; with braid.log.dir (or BRAID_LOG_DIR) to rotating files in that"
          + " directory, warnings and errors to stderr as well."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped on request",
      "1:could not start (port in use, data dir not writable or in use, ...)",
      "2:bad command line or configuration"
    })
final class ZkCommand implements Callable<Integer> {
  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--address",
      paramLabel = "HOST:PORT",
      description = "Take client connections here (braid.zk.address); port 0 picks a free port.")
  @Nullable String address;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "The data directory (braid.zk.dir); created if missing.")
  @Nullable Path dir;

  @Option(
      names = "--servers",
      paramLabel = "N=HOST:PEER:ELECTION[,...]",
      description = "Every ensemble member, the same on each (braid.zk.servers).")
  @Nullable String servers;

  @Option(
      names = "--id",
      paramLabel = "N",
      description = "This member's N in the ensemble (braid.zk.id).")
  @Nullable Integer id;

  @Override
  public Integer call() {
    CommandSpec s = spec();
    BraidConfig cfg = configuration();
    EmbeddedZooKeeper zk = server(cfg);
    String name = s.qualifiedName();
    int member = cfg.get(ZooKeeperConfigKeys.ID);
    // A standalone server (id 0) is plain "zk"; an ensemble member is "zk-N".
    ServerLogs logs =
        ServerLogs.startFor(cfg, s, "zk", member == 0 ? "zk" : Integer.toString(member), false);
    if (logs == null) {
      return Braid.EXIT_FAILURE;
    }
    try (logs) {
      return Foreground.run(
          s,
          "address " + cfg.get(ZooKeeperConfigKeys.ADDRESS) + ", data " + zk.dir(),
          "choose another with --address",
          zk,
          z ->
              name + ": serving " + z.connectString() + " (" + z.mode() + ", data " + z.dir() + ")",
          parent().stopSignal(),
          EmbeddedZooKeeper::whenStopped);
    }
  }

  /**
   * The server's configuration from the file, {@code -D} and the flags.
   *
   * @throws ConfigException if any of it is unknown or invalid
   */
  BraidConfig configuration() {
    Map<String, String> flags = new LinkedHashMap<>();
    if (address != null) {
      flags.put(ZooKeeperConfigKeys.ADDRESS.name(), address);
    }
    if (dir != null) {
      flags.put(ZooKeeperConfigKeys.DIR.name(), dir.toString());
    }
    if (servers != null) {
      flags.put(ZooKeeperConfigKeys.SERVERS.name(), servers);
    }
    if (id != null) {
      flags.put(ZooKeeperConfigKeys.ID.name(), Integer.toString(id));
    }
    return config.load(spec().commandLine(), flags);
  }

  /**
   * The server, configured and checked but not started.
   *
   * @throws ConfigException if the configuration is invalid, such as an id not in the ensemble
   */
  private EmbeddedZooKeeper server(BraidConfig cfg) {
    try {
      return new EmbeddedZooKeeper(cfg);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(spec().commandLine(), String.valueOf(e.getMessage()), e);
    }
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
