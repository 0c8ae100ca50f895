package io.braidfs.cli;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.fuse.BraidMount;
import io.braidfs.fuse.MountException;
import io.braidfs.fuse.MountOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid mount DIR}: mounts a Braid cluster on a directory with FUSE (fs-fuse) and serves it
 * in the foreground until SIGTERM, Ctrl-C or an unmount from outside ({@code fusermount -u DIR}).
 *
 * <p>Once mounted it prints one line to stdout, {@code braid mount: DIR mounted (mds ...)}; scripts
 * wait for it. A mount that cannot be made (no /dev/fuse, no libfuse, a busy or non-empty
 * directory, an unreachable cluster) is one line on stderr saying what to do, and exit code 1.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "mount",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Mounts Braid on DIR with FUSE and serves it until Ctrl-C, SIGTERM or fusermount -u DIR.",
      "Every user of the machine acts as themselves (uid and gid of the calling process).",
      "Prints 'braid mount: DIR mounted (...)' once the mount serves."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:unmounted on request",
      "1:could not mount (no FUSE, directory busy or not empty, cluster unreachable, ...)",
      "2:bad command line or configuration"
    })
final class MountCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(MountCommand.class);

  /** How long a metadata call may wait for an MDS before the caller gets EIO. */
  static final String FAILOVER_TIMEOUT = "30s";

  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Parameters(index = "0", paramLabel = "DIR", description = "The (empty) mount point.")
  @Nullable Path dir;

  @Option(
      names = "--mds",
      paramLabel = "HOST:PORT[,...]",
      description = "Every MDS's address (braid.client.mds; default 127.0.0.1:7400).")
  @Nullable String mds;

  @Option(
      names = "--attr-timeout",
      paramLabel = "SECONDS",
      defaultValue = "1",
      description =
          "How long the kernel reuses attributes and names (attr_timeout, entry_timeout;"
              + " default ${DEFAULT-VALUE}); a change made elsewhere shows after at most this.")
  double attrTimeout = 1;

  @Option(
      names = "--allow-other",
      negatable = true,
      description =
          "Let every user use the mount (allow_other; default: on when run as root; other"
              + " mounters need user_allow_other in /etc/fuse.conf).")
  @Nullable Boolean allowOther;

  @Option(
      names = "-o",
      paramLabel = "OPT[,OPT...]",
      description = "More libfuse 2 mount options, passed on verbatim.")
  @Nullable String extra;

  @Option(names = "--fuse-debug", description = "libfuse's request trace on stderr.")
  boolean debug;

  @Override
  public Integer call() {
    CommandSpec s = spec();
    if (dir == null) {
      throw new CommandLine.ParameterException(s.commandLine(), "DIR is required");
    }
    if (!(attrTimeout >= 0 && attrTimeout <= 3600)) {
      throw new CommandLine.ParameterException(
          s.commandLine(), "--attr-timeout: " + attrTimeout + " is not from 0 to 3600");
    }
    BraidConfig cfg = configuration(s.commandLine());
    MountOptions options =
        MountOptions.defaults()
            .withAttrTimeout(Duration.ofMillis(Math.round(attrTimeout * 1000)))
            .withExtra(extra == null ? "" : extra)
            .withDebug(debug);
    if (allowOther != null) {
      options = options.withAllowOther(allowOther);
    }
    String where = "mds " + String.join(",", cfg.get(ClientConfigKeys.MDS));
    return serve(
        s.commandLine(), s.qualifiedName(), dir, cfg, options, where, parent().stopSignal());
  }

  /**
   * Mounts, prints the ready line, serves until {@code stop} or an outside unmount, unmounts.
   *
   * @return {@link Braid#EXIT_OK} after an unmount, {@link Braid#EXIT_FAILURE} if it did not mount
   */
  static int serve(
      CommandLine cmd,
      String what,
      Path dir,
      BraidConfig cfg,
      MountOptions options,
      String where,
      StopSignal stop) {
    return serve(cmd, what, dir, cfg, options, where, "", stop);
  }

  /**
   * {@link #serve(CommandLine, String, Path, BraidConfig, MountOptions, String, StopSignal)}, and
   * {@code ready} (when not empty) printed once the mount serves.
   */
  static int serve(
      CommandLine cmd,
      String what,
      Path dir,
      BraidConfig cfg,
      MountOptions options,
      String where,
      String ready,
      StopSignal stop) {
    PrintWriter out = cmd.getOut();
    PrintWriter err = cmd.getErr();
    BraidMount mount;
    try {
      mount = BraidMount.mount(dir, cfg, options);
    } catch (MountException e) {
      LOG.debug("{}: mount failed", what, e);
      err.println(what + ": cannot mount " + dir + ": " + e.getMessage());
      err.flush();
      return Braid.EXIT_FAILURE;
    }
    try (mount) {
      out.println(what + ": " + mount.directory() + " mounted (" + where + ")");
      if (!ready.isEmpty()) {
        out.println(ready);
      }
      out.flush();
      while (!stop.isRequested()) {
        if (mount.awaitUnmount(200)) {
          LOG.info("{}: {} was unmounted", what, mount.directory());
          return Braid.EXIT_OK;
        }
      }
      LOG.info("{}: unmounting {}", what, mount.directory());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(what + ": interrupted; unmounted");
      err.flush();
      return Braid.EXIT_FAILURE;
    }
    return Braid.EXIT_OK;
  }

  private BraidConfig configuration(CommandLine cmd) {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put(ClientConfigKeys.FAILOVER_TIMEOUT.name(), FAILOVER_TIMEOUT);
    Map<String, String> flags = new LinkedHashMap<>();
    if (mds != null) {
      flags.put(ClientConfigKeys.MDS.name(), mds);
    }
    BraidConfig cfg = config.load(cmd, defaults, flags);
    String origin = mds != null ? "--mds" : ClientConfigKeys.MDS.name();
    List<String> addresses = cfg.get(ClientConfigKeys.MDS);
    if (addresses.isEmpty()) {
      throw new ConfigException(cmd, origin + ": name at least one MDS as HOST:PORT", null);
    }
    for (String a : addresses) {
      try {
        HostPort.parse(a);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(cmd, origin + ": " + e.getMessage(), e);
      }
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
