package io.braidfs.cli;

import io.braidfs.cli.internal.web.DataServerStatus;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.DataServerConfigKeys;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * {@code braid dataserver}: runs one data server in the foreground until SIGTERM or Ctrl-C.
 *
 * <p>Once it listens, it prints exactly one line to stdout, {@code braid dataserver listening on
 * HOST:PORT (dirs DIR[,DIR...], mds HOST:PORT[,...])}, with the bound port (when configured with
 * port 0) and the data directories' absolute paths; tests and scripts wait for it. Registration
 * with the MDS comes after that line, in the background, and is retried until an MDS answers, so
 * data servers and MDSs may be started in any order. Everything else it says goes to the log on
 * stderr.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "dataserver",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Runs a data server in the foreground until stopped (SIGTERM or Ctrl-C).",
      "Prints 'braid dataserver listening on HOST:PORT (dirs DIR[,DIR...], mds HOST:PORT[,...])'"
          + " once it listens.",
      "It then registers with the MDS in the background, retrying until one answers"
          + " (braid.dataserver.register-retry), so the MDS may start later.",
      "Configuration: --address, --dir and --mds override -D, which overrides --conf, which"
          + " overrides $BRAID_CONF_DIR/dataserver.properties, which overrides"
          + " $BRAID_CONF_DIR/braid.properties, which overrides the defaults"
          + " (docs/configuration.md).",
      "Logs: to stderr; with braid.log.dir (or BRAID_LOG_DIR) to rotating files in that"
          + " directory, warnings and errors to stderr as well."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped on request",
      "1:could not start (port in use, a data dir that is not a directory, ...)",
      "2:bad command line or configuration"
    })
final class DataServerCommand implements Callable<Integer> {
  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--address",
      paramLabel = "HOST:PORT",
      description = "Listen here (braid.dataserver.address); port 0 picks a free port.")
  @Nullable String address;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "A data directory, one per disk (braid.dataserver.dirs); repeat for more. Created if"
              + " missing.")
  List<Path> dirs = new ArrayList<>();

  @Option(
      names = "--mds",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      description = "Every MDS's address, comma-separated (braid.dataserver.mds).")
  @Nullable String mds;

  @Option(
      names = "--id",
      paramLabel = "NAME",
      defaultValue = "ds",
      description = "This server's name in logs and thread names (default: ${DEFAULT-VALUE}).")
  String id = "ds";

  @Override
  public Integer call() {
    CommandSpec s = spec();
    BraidConfig cfg = configuration();
    List<String> dataDirs = absolute(cfg.get(DataServerConfigKeys.DIRS));
    String dirList = String.join(",", dataDirs);
    String mdsList = String.join(",", mdsAddresses(cfg));
    String where =
        "address "
            + cfg.get(DataServerConfigKeys.ADDRESS)
            + ", dirs "
            + dirList
            + ", mds "
            + mdsList;
    // The store would refuse such a path too, but its exception names only the path, not why.
    for (String d : dataDirs) {
      Path p = Path.of(d);
      if (Files.exists(p) && !Files.isDirectory(p)) {
        PrintWriter err = s.commandLine().getErr();
        err.println(
            s.qualifiedName() + ": failed to start (" + where + "): " + d + " is not a directory");
        err.flush();
        return Braid.EXIT_FAILURE;
      }
    }
    ServerLogs logs = ServerLogs.startFor(cfg, s, "dataserver", id, false);
    if (logs == null) {
      return Braid.EXIT_FAILURE;
    }
    try (logs) {
      ServerMetrics.Started started = ServerMetrics.startFor(cfg, s);
      if (started.failed()) {
        return Braid.EXIT_FAILURE;
      }
      ServerMetrics metrics = started.metrics();
      DataServer server = new DataServer(cfg, id);
      server.observe(ServerMetrics.observer(metrics));
      if (metrics != null) {
        List<String> mds = mdsAddresses(cfg);
        metrics.status().attach(new DataServerStatus(() -> List.of(server), () -> mds));
        metrics.gauges().watchDataServers(() -> List.of(server));
      }
      try (metrics) {
        return serve(s, where, dirList, mdsList, server);
      }
    }
  }

  private int serve(
      CommandSpec s, String where, String dirList, String mdsList, DataServer server) {
    return Foreground.run(
        s,
        where,
        "choose another with --address",
        server,
        ds ->
            s.qualifiedName()
                + " listening on "
                + HostPort.of(ds.address())
                + " (dirs "
                + dirList
                + ", mds "
                + mdsList
                + ")",
        parent().stopSignal(),
        DataServer::whenStopped);
  }

  /**
   * The server's configuration from the file, {@code -D} and the flags, checked as far as it can be
   * without touching the disks or the network.
   *
   * @throws ConfigException if any of it is unknown or invalid, or no data directory is named
   */
  BraidConfig configuration() {
    Map<String, String> flags = new LinkedHashMap<>();
    if (address != null) {
      flags.put(DataServerConfigKeys.ADDRESS.name(), address);
    }
    if (!dirs.isEmpty()) {
      List<String> names = new ArrayList<>();
      for (Path d : dirs) {
        // The key is a comma-separated list: a comma inside one --dir would split it in two.
        if (d.toString().contains(",")) {
          throw new ConfigException(
              spec().commandLine(),
              "--dir: '"
                  + d
                  + "' contains a comma, which "
                  + DataServerConfigKeys.DIRS.name()
                  + " cannot hold",
              null);
        }
        names.add(d.toString());
      }
      flags.put(DataServerConfigKeys.DIRS.name(), String.join(",", names));
    }
    if (mds != null) {
      flags.put(DataServerConfigKeys.MDS.name(), mds);
    }
    if (id.isBlank() || !id.strip().equals(id)) {
      throw new ConfigException(
          spec().commandLine(), "--id: '" + id + "' is blank or has spaces around it", null);
    }
    BraidConfig cfg = config.load(spec().commandLine(), flags);
    checkAddress(
        address != null ? "--address" : DataServerConfigKeys.ADDRESS.name(),
        cfg.get(DataServerConfigKeys.ADDRESS));
    String mdsOrigin = mds != null ? "--mds" : DataServerConfigKeys.MDS.name();
    List<String> mdsEntries = cfg.get(DataServerConfigKeys.MDS);
    if (mdsEntries.isEmpty()) {
      throw new ConfigException(
          spec().commandLine(), mdsOrigin + ": name at least one MDS as HOST:PORT", null);
    }
    for (String m : mdsEntries) {
      checkAddress(mdsOrigin, m);
    }
    List<String> dataDirs = cfg.get(DataServerConfigKeys.DIRS);
    if (dataDirs.isEmpty()) {
      throw new ConfigException(
          spec().commandLine(),
          DataServerConfigKeys.DIRS.name()
              + " is not set: name at least one data directory with --dir DIR",
          null);
    }
    for (String d : dataDirs) {
      try {
        var unused = Path.of(d); // parsed only to refuse an invalid path here
      } catch (InvalidPathException e) {
        throw new ConfigException(
            spec().commandLine(),
            DataServerConfigKeys.DIRS.name() + ": invalid path '" + d + "': " + e.getReason(),
            e);
      }
    }
    return cfg;
  }

  private void checkAddress(String origin, String value) {
    try {
      HostPort.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(spec().commandLine(), origin + ": " + e.getMessage(), e);
    }
  }

  /** The MDS addresses as the server will dial them; only called once they parsed. */
  private static List<String> mdsAddresses(BraidConfig cfg) {
    List<String> out = new ArrayList<>();
    for (String m : cfg.get(DataServerConfigKeys.MDS)) {
      out.add(HostPort.parse(m).toString());
    }
    return out;
  }

  private static List<String> absolute(List<String> paths) {
    List<String> out = new ArrayList<>();
    for (String p : paths) {
      out.add(Path.of(p).toAbsolutePath().normalize().toString());
    }
    return out;
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
