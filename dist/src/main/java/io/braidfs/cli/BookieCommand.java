package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.mds.ha.EmbeddedBookie;
import io.braidfs.mds.ha.HaCoordinator;
import io.braidfs.mds.ha.MdsHaConfigKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
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
 * {@code braid bookie}: runs a BookKeeper bookie for the MDS journal in the foreground until
 * SIGTERM or Ctrl-C, for clusters whose bookies run on hosts of their own (the MDS replicas then
 * run with {@code braid.mds.ha.bookie.embedded=false}). It is the bookie every MDS replica embeds
 * by default, with the same settings (research/bookkeeper-spike.md), registered under the cluster's
 * ZooKeeper root; it creates BookKeeper's metadata there if no MDS has yet.
 *
 * <p>Once it serves it prints exactly one line to stdout, {@code braid bookie: serving HOST:PORT
 * (data DIR)}; its logs go to stderr.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "bookie",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs a BookKeeper bookie for the MDS replicas' journal in the foreground until stopped"
          + " (SIGTERM or Ctrl-C): for clusters whose bookies run on their own hosts (then set"
          + " braid.mds.ha.bookie.embedded=false on the MDS replicas). Each ledger goes to"
          + " braid.mds.ha.ensemble bookies.",
      "Prints 'braid bookie: serving HOST:PORT (data DIR)' once it serves.",
      "Configuration: the flags override -D, which overrides --conf, which overrides"
          + " $BRAID_CONF_DIR/bookie.properties, which overrides $BRAID_CONF_DIR/braid.properties,"
          + " which overrides the defaults (docs/configuration.md).",
      "Logs: to stderr; with braid.log.dir (or BRAID_LOG_DIR) to rotating files in that"
          + " directory, warnings and errors to stderr as well."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped on request",
      "1:could not start (ZooKeeper unreachable, port in use, directory not writable, ...)",
      "2:bad command line or configuration"
    })
final class BookieCommand implements Callable<Integer> {
  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--zk",
      paramLabel = "HOST:PORT[,...]",
      description = "The ZooKeeper ensemble of the cluster (braid.mds.ha.zk).")
  @Nullable String zk;

  @Option(
      names = "--address",
      paramLabel = "HOST:PORT",
      description =
          "Listen here; the bookie's identity, never to change (braid.mds.ha.bookie.address).")
  @Nullable String address;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Journal and ledger directory (braid.mds.ha.bookie.dir); created if missing.")
  @Nullable Path dir;

  @Override
  public Integer call() {
    CommandSpec s = spec();
    BraidConfig cfg = configuration();
    if (cfg.get(MdsHaConfigKeys.ZK).isEmpty()) {
      throw new ConfigException(
          s.commandLine(),
          "braid bookie needs the cluster's ZooKeeper: --zk or braid.mds.ha.zk",
          null);
    }
    String d = cfg.get(MdsHaConfigKeys.BOOKIE_DIR);
    if (d.isEmpty()) {
      throw new ConfigException(
          s.commandLine(),
          "braid bookie needs a directory: --dir or braid.mds.ha.bookie.dir",
          null);
    }
    InetSocketAddress at;
    try {
      at =
          HostPort.parseSetting(
              MdsHaConfigKeys.BOOKIE_ADDRESS.name(), cfg.get(MdsHaConfigKeys.BOOKIE_ADDRESS));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(s.commandLine(), String.valueOf(e.getMessage()), e);
    }
    Path data = Path.of(d).toAbsolutePath();
    String name = s.qualifiedName();
    // A bookie has no id but its address, which never changes; two on a host differ in port.
    ServerLogs logs = ServerLogs.startFor(cfg, s, "bookie", Integer.toString(at.getPort()), false);
    if (logs == null) {
      return Braid.EXIT_FAILURE;
    }
    Standalone bookie = new Standalone(cfg, at, data);
    try (logs) {
      return Foreground.run(
          s,
          "address " + HostPort.of(at) + ", ZooKeeper " + cfg.get(MdsHaConfigKeys.ZK),
          "choose another with --address",
          bookie,
          b -> name + ": serving " + HostPort.of(at) + " (data " + data + ")",
          parent().stopSignal());
    }
  }

  /** The bookie and the ZooKeeper connection that made sure BookKeeper's metadata exists. */
  private static final class Standalone implements Service {
    private final HaCoordinator zk;
    private final InetSocketAddress address;
    private final Path dir;
    private @Nullable EmbeddedBookie bookie;

    Standalone(BraidConfig config, InetSocketAddress address, Path dir) {
      this.zk = new HaCoordinator("bookie", config, HostPort.of(address).toString());
      this.address = address;
      this.dir = dir;
    }

    @Override
    public void start() throws IOException {
      zk.start(); // connects (waiting with progress) and creates BookKeeper's metadata if missing
      EmbeddedBookie b =
          new EmbeddedBookie(
              "bookie " + HostPort.of(address),
              zk.metadataServiceUri(),
              address,
              dir,
              zk.sessionTimeout());
      bookie = b;
      b.start();
    }

    @Override
    public void close() {
      EmbeddedBookie b = bookie;
      if (b != null) {
        b.close();
      }
      zk.close();
    }
  }

  /**
   * The bookie's configuration from the file, {@code -D} and the flags.
   *
   * @throws ConfigException if any of it is unknown or invalid
   */
  BraidConfig configuration() {
    Map<String, String> flags = new LinkedHashMap<>();
    if (zk != null) {
      flags.put(MdsHaConfigKeys.ZK.name(), zk);
    }
    if (address != null) {
      flags.put(MdsHaConfigKeys.BOOKIE_ADDRESS.name(), address);
    }
    if (dir != null) {
      flags.put(MdsHaConfigKeys.BOOKIE_DIR.name(), dir.toString());
    }
    return config.load(spec().commandLine(), flags);
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
