package io.braidfs.client;

import io.braidfs.client.internal.MetadataClient;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.ClusterReportRequest;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.SetServerStateRequest;
import java.io.IOException;

/**
 * The operators' calls ({@code braid admin}): fsck, the cluster report, and the state of data
 * servers (decommission, maintenance). Obtained from {@link BraidClient#admin()}; its calls go to
 * the leading MDS through the client's connection, with the same failover and BUSY retries as every
 * metadata call. The MDS serves fsck and server states to the superuser only ({@code
 * braid.mds.security.superuser}); others get {@link java.nio.file.AccessDeniedException}
 * (PERMISSION_DENIED).
 *
 * <pre>{@code
 * try (BraidClient c = BraidClient.builder(config).user("root").build()) {
 *   FsckReport r = c.admin().fsck("/", false, 0);
 *   if (r.hasUnreadableData()) { ... }
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; it holds nothing but the client's connection.
 */
public final class BraidAdmin {
  private final MetadataClient mds;

  BraidAdmin(MetadataClient mds) {
    this.mds = mds;
  }

  /**
   * Checks the files under {@code path}: how many of their chunks have their full replication, too
   * few replicas, only corrupt ones, or none on a live data server.
   *
   * @param path a file or a directory; {@code /} checks everything
   * @param verbose list every file, not only those that are not healthy
   * @param maxFiles the most files listed (0: the MDS's default, 10,000); the counts always cover
   *     every file
   * @throws java.io.FileNotFoundException if there is no such path
   * @throws java.nio.file.AccessDeniedException if the caller is not the superuser
   * @throws IllegalArgumentException if {@code maxFiles} is negative
   */
  public FsckReport fsck(String path, boolean verbose, int maxFiles) throws IOException {
    if (maxFiles < 0) {
      throw new IllegalArgumentException("fsck " + path + ": negative maxFiles " + maxFiles);
    }
    return Protos.fsckReport(
        mds.call(
            RpcMethod.FSCK,
            FsckRequest.newBuilder()
                .setPath(BraidPath.parse(path).toString())
                .setVerbose(verbose)
                .setMaxFiles(maxFiles)
                .build()));
  }

  /** Every data server the MDS knows, with its state, space and activity, and the totals. */
  public ClusterReport clusterReport() throws IOException {
    return Protos.clusterReport(
        mds.call(RpcMethod.CLUSTER_REPORT, ClusterReportRequest.getDefaultInstance()));
  }

  /**
   * Changes a data server's state: {@link ServerState#DECOMMISSIONING} drains it (the MDS moves it
   * to {@link ServerState#DECOMMISSIONED} once its replicas are copied elsewhere; reads are served
   * meanwhile), {@link ServerState#IN_MAINTENANCE} takes it out for a planned restart without
   * copying its replicas, {@link ServerState#IN_SERVICE} brings it back. Idempotent: asking for the
   * state a server is in (or, for DECOMMISSIONING, has reached) changes nothing.
   *
   * @param server {@code host:port} as the server registered, or its id in decimal
   * @param state IN_SERVICE, DECOMMISSIONING or IN_MAINTENANCE
   * @return the server after the change
   * @throws java.io.FileNotFoundException if the MDS knows no such server
   * @throws java.nio.file.AccessDeniedException if the caller is not the superuser
   * @throws IllegalArgumentException if {@code state} is DECOMMISSIONED or UNKNOWN, which only the
   *     MDS sets
   */
  public ServerReport setServerState(String server, ServerState state) throws IOException {
    if (state == ServerState.DECOMMISSIONED || state == ServerState.UNKNOWN) {
      throw new IllegalArgumentException(
          "set state of " + server + ": " + state + " is not a state an operator sets");
    }
    return Protos.serverReport(
        mds.call(
                RpcMethod.SET_SERVER_STATE,
                SetServerStateRequest.newBuilder()
                    .setServer(server)
                    .setState(Protos.toProto(state))
                    .build())
            .getServer());
  }
}
