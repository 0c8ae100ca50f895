package io.braidfs.cli;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.fuse.BraidMount;
import io.braidfs.fuse.MountException;
import io.braidfs.fuse.MountOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code braid local --mount DIR}: the local cluster, then a FUSE mount of it on DIR ({@link
 * MountCommand#serve}), both until SIGTERM or Ctrl-C; the mount goes first, then the cluster.
 *
 * <p>Thread-safety: stateless; {@link #run} blocks until stopped.
 */
final class LocalMount {
  private static final Logger LOG = LoggerFactory.getLogger(LocalMount.class);

  private LocalMount() {}

  static int run(
      CommandLine cmd,
      String what,
      String where,
      LocalCluster cluster,
      Path mount,
      StopSignal stop) {
    PrintWriter err = cmd.getErr();
    try {
      BraidMount.check(mount, MountOptions.defaults()); // before anything starts
    } catch (MountException e) {
      err.println(what + ": --mount " + mount + ": " + e.getMessage());
      err.flush();
      return Braid.EXIT_FAILURE;
    }
    try (cluster) {
      try {
        cluster.start();
      } catch (IOException | RuntimeException e) {
        LOG.debug("{}: start failed", what, e);
        err.println(what + ": failed to start (" + where + "): " + Errors.describe(e));
        err.flush();
        return Braid.EXIT_FAILURE;
      }
      // fusermount, started by the mount, must not keep the servers' sockets (see CloseOnExec).
      CloseOnExec.markAll();
      List<String> addresses = new ArrayList<>();
      for (HostPort a : cluster.mdsAddresses()) {
        addresses.add(a.toString());
      }
      String mds = String.join(",", addresses);
      BraidConfig client = BraidConfig.fromMap(Map.of(ClientConfigKeys.MDS.name(), mds));
      // The ready line comes once the mount serves: scripts waiting for it may use the mount.
      return MountCommand.serve(
          cmd,
          what,
          mount,
          client,
          MountOptions.defaults(),
          "mds " + mds,
          LocalCommand.readyText(cluster),
          stop);
    }
  }
}
