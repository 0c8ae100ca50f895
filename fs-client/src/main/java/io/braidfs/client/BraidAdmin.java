package io.braidfs.client;

import io.braidfs.client.internal.MetadataClient;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.ClusterReportRequest;
import io.braidfs.proto.FailoverRequest;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.SetServerStateRequest;
import java.io.IOException;

/**
 * The operators' calls ({@code braid admin}): fsck, the cluster report, the state of data servers
 * (decommission, maintenance), and a planned MDS failover ({@link #failover}; each MDS's own view
 * of its role is {@link MdsProbe}'s, which needs no leader). Obtained from {@link
 * BraidClient#admin()}; its calls go to the leading MDS through the client's connection, with the
 * same failover and BUSY retries as every metadata call. The MDS serves fsck and server states to
 * the superuser only ({@code braid.mds.security.superuser}); others get {@link
 * java.nio.file.AccessDeniedException} (PERMISSION_DENIED).
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

  /**
   * Asks the leading MDS to hand leadership to another HA replica, for maintenance of its host. It
   * answers, then leaves the election and rejoins it as a standby, and ZooKeeper elects the replica
   * that has waited longest; the leader cannot choose it, so reaching {@code target} may take more
   * than one call. Leadership has moved once another replica reports {@link MdsRole#LEADER} with an
   * epoch above the one returned ({@link MdsProbe}). The MDS serves this to the superuser only.
   *
   * @param target {@code host:port} of the replica meant to lead next, or empty for any; the leader
   *     refuses one that is not in the election, or is itself
   * @param epoch hand over only while leading under this epoch (as {@link MdsStatus#epoch()} showed
   *     it), so that a repeated call cannot move leadership twice; 0 for any epoch
   * @return the leader that handed over
   * @throws java.nio.file.AccessDeniedException if the caller is not the superuser
   * @throws IOException with status INVALID_ARGUMENT if no other replica is in the election, the
   *     target is not one, or the leader's epoch is not {@code epoch}; UNSUPPORTED ({@link
   *     io.braidfs.common.error.OperationUnsupportedException}) from a lone MDS
   * @throws IllegalArgumentException if {@code epoch} is negative
   */
  public FailoverResult failover(String target, long epoch) throws IOException {
    if (epoch < 0) {
      throw new IllegalArgumentException("failover: negative epoch " + epoch);
    }
    return Protos.failoverResult(
        mds.call(
            RpcMethod.FAILOVER,
            FailoverRequest.newBuilder().setTarget(target.strip()).setEpoch(epoch).build()));
  }
}
