package io.braidfs.cli;

import io.braidfs.cli.internal.web.MdsStatus;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.mds.access.MdsSecurityConfigKeys;
import io.braidfs.mds.ha.MdsHaConfigKeys;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
 * {@code braid mds}: runs one metadata server in the foreground until SIGTERM or Ctrl-C.
 *
 * <p>Once it serves, it prints exactly one line to stdout, {@code braid mds listening on HOST:PORT
 * (store DIR)}, with the bound port (when configured with port 0) and the store's absolute path;
 * tests and scripts wait for it. Everything else it says goes to the log on stderr.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "mds",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs a metadata server in the foreground until stopped (SIGTERM or Ctrl-C).",
      "Prints 'braid mds listening on HOST:PORT (store DIR)' once it serves.",
      "Configuration: --address and --dir override -D, which overrides --conf, which overrides"
          + " $BRAID_CONF_DIR/mds.properties, which overrides $BRAID_CONF_DIR/braid.properties,"
          + " which overrides the defaults (docs/configuration.md).",
      "Logs: to stderr; with braid.log.dir (or BRAID_LOG_DIR) to rotating files in that"
          + " directory, warnings and errors to stderr as well."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped on request",
      "1:could not start (port in use, store locked by another MDS, ZooKeeper unreachable,"
          + " ...), or stopped on its own (its store failed; an HA replica that loses"
          + " leadership rejoins as a standby instead)",
      "2:bad command line or configuration"
    })
final class MdsCommand implements Callable<Integer> {
  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--address",
      paramLabel = "HOST:PORT",
      description = "Listen here (braid.mds.address); port 0 picks a free port.")
  @Nullable String address;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "The namespace store's directory (braid.mds.store.dir).")
  @Nullable Path dir;

  @Option(
      names = "--zk",
      paramLabel = "HOST:PORT,...",
      description =
          "ZooKeeper ensemble electing the leader among MDS replicas (braid.mds.ha.zk); without"
              + " it this MDS runs alone.")
  @Nullable String zk;

  @Option(
      names = "--id",
      paramLabel = "N",
      description = "This replica's name (braid.mds.id); a number N names it mds-N.")
  @Nullable String id;

  @Override
  public Integer call() {
    CommandSpec s = spec();
    BraidConfig cfg = configuration();
    Path store = Path.of(cfg.get(MdsStoreConfigKeys.DIR)).toAbsolutePath().normalize();
    ServerLogs logs = ServerLogs.startFor(cfg, s, "mds", cfg.get(MdsConfigKeys.ID), true);
    if (logs == null) {
      return Braid.EXIT_FAILURE;
    }
    try (logs) {
      ServerMetrics.Started started = ServerMetrics.startFor(cfg, s);
      if (started.failed()) {
        return Braid.EXIT_FAILURE;
      }
      ServerMetrics metrics = started.metrics();
      MdsServer server = new MdsServer(cfg);
      server.observe(ServerMetrics.observer(metrics));
      if (metrics != null) {
        metrics
            .status()
            .attach(new MdsStatus(() -> server, cfg.get(MdsSecurityConfigKeys.SUPERUSER)));
        metrics.gauges().watchMds(() -> List.of(server));
      }
      try (metrics) {
        return serve(s, store, cfg, server);
      }
    }
  }

  private int serve(CommandSpec s, Path store, BraidConfig cfg, MdsServer server) {
    return Foreground.run(
        s,
        "address " + cfg.get(MdsConfigKeys.ADDRESS) + ", store " + store,
        "choose another with --address",
        server,
        mds ->
            s.qualifiedName()
                + " listening on "
                + HostPort.of(mds.address())
                + " (store "
                + store
                + ")",
        parent().stopSignal(),
        // The store failed, or an HA replica could not rejoin as a standby.
        mds -> mds.whenStopped().thenApply(reason -> null));
  }

  /**
   * The server's configuration from the file, {@code -D} and the flags.
   *
   * @throws ConfigException if any of it is unknown or invalid
   */
  BraidConfig configuration() {
    Map<String, String> flags = new LinkedHashMap<>();
    if (address != null) {
      flags.put(MdsConfigKeys.ADDRESS.name(), address);
    }
    if (dir != null) {
      flags.put(MdsStoreConfigKeys.DIR.name(), dir.toString());
    }
    if (zk != null) {
      flags.put(MdsHaConfigKeys.ZK.name(), zk);
    }
    if (id != null) {
      flags.put(MdsConfigKeys.ID.name(), id.matches("[0-9]+") ? "mds-" + id : id);
    }
    BraidConfig cfg = config.load(spec().commandLine(), flags);
    String effective = cfg.get(MdsConfigKeys.ADDRESS);
    try {
      HostPort.parse(effective);
    } catch (IllegalArgumentException e) {
      String origin = address != null ? "--address" : MdsConfigKeys.ADDRESS.name();
      throw new ConfigException(spec().commandLine(), origin + ": " + e.getMessage(), e);
    }
    return cfg;
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
