package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.ConfirmChunksRequest;
import io.braidfs.proto.ConfirmChunksResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The ClusterService operations: data servers register and heartbeat (receiving deletion commands
 * and signing keys), and ask at start-up which replicas are still wanted.
 *
 * <p>Thread-safety: {@link #heartbeat} runs on the mutation thread (it may remove deletion
 * records); the rest is thread-safe.
 */
public final class ClusterOps {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClusterOps.class);

  /** The most deletion commands one heartbeat answer carries. */
  static final int MAX_DELETIONS_PER_HEARTBEAT = 1000;

  private final Namespace ns;
  private final ChunkReports reports;

  public ClusterOps(Namespace ns) {
    this.ns = ns;
    this.reports = ns.reports;
  }

  /** Reconciles the chunk reports data servers send. */
  public ChunkReports reports() {
    return reports;
  }

  /**
   * Registers a data server. Its advertised host must not resolve to a loopback address unless the
   * server itself connects from one: other hosts could not reach it.
   *
   * @param from the address the registration came from (null: not checked)
   */
  public RegisterDataServerResponse register(
      RegisterDataServerRequest req, java.net.@Nullable SocketAddress from) throws IOException {
    checkAdvertised(req, from);
    return register(req);
  }

  private static void checkAdvertised(
      RegisterDataServerRequest req, java.net.@Nullable SocketAddress from) throws IOException {
    java.net.InetAddress advertised;
    try {
      advertised = java.net.InetAddress.getByName(req.getHost());
    } catch (java.net.UnknownHostException e) {
      // Clients may resolve names the MDS cannot (another resolver): not refused, said once.
      LOG.warn(
          "register {}:{}: the advertised host does not resolve on the MDS",
          req.getHost(),
          req.getPort());
      return;
    }
    if (advertised.isLoopbackAddress()
        && from instanceof java.net.InetSocketAddress peer
        && peer.getAddress() != null
        && !peer.getAddress().isLoopbackAddress()) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "register "
              + req.getHost()
              + ":"
              + req.getPort()
              + ": the advertised host resolves to loopback ("
              + advertised.getHostAddress()
              + ") but the server connects from "
              + peer.getAddress().getHostAddress()
              + "; set braid.dataserver.advertised-host to an address other hosts can reach");
    }
  }

  public RegisterDataServerResponse register(RegisterDataServerRequest req) throws IOException {
    if (!req.getClusterId().isEmpty() && !req.getClusterId().equals(ns.clusterId())) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "register "
              + req.getHost()
              + ":"
              + req.getPort()
              + ": its data belongs to cluster "
              + req.getClusterId()
              + ", this MDS serves "
              + ns.clusterId());
    }
    List<DataServer.DataDir> dirs = new ArrayList<>();
    for (DataDir d : req.getDataDirsList()) {
      dirs.add(
          new DataServer.DataDir(
              d.getPath(), d.getStorageId(), d.getFileSystemId(), d.getCapacityBytes()));
    }
    DataServer server;
    try {
      server =
          ns.registry.register(
              new DataServerRegistry.Registration(
                  req.getServerId(),
                  req.getHost(),
                  req.getPort(),
                  req.getRack(),
                  dirs,
                  req.getCapacityBytes()));
    } catch (IllegalArgumentException e) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, "register: " + e.getMessage());
    }
    return RegisterDataServerResponse.newBuilder()
        .setServerId(server.id())
        .setClusterId(ns.clusterId())
        .setMdsEpoch(ns.epoch())
        .setHeartbeatIntervalMs((int) ns.registry.heartbeatInterval().toMillis())
        .setSigningKeys(ns.signingKeys())
        .setDelegationKeys(ns.delegationTokens().keysForDataServers())
        .build();
  }

  /** A heartbeat; deletion records finished with are removed in {@code m}. */
  public HeartbeatResponse heartbeat(Mutation m, HeartbeatRequest req) throws IOException {
    DataServer.Usage usage;
    try {
      List<DataServer.DirSpace> dirs = new ArrayList<>(req.getDataDirsCount());
      for (DataDir d : req.getDataDirsList()) {
        dirs.add(
            new DataServer.DirSpace(
                d.getFileSystemId(),
                d.getCapacityBytes(),
                d.getUsedBytes(),
                d.getAvailableBytes()));
      }
      usage =
          new DataServer.Usage(
              req.getCapacityBytes(),
              req.getUsedBytes(),
              req.getAvailableBytes(),
              req.getActiveTransfers(),
              dirs,
              req.getFailedDataDirs());
    } catch (IllegalArgumentException e) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, "heartbeat: " + e.getMessage());
    }
    DataServerRegistry.HeartbeatOutcome outcome = ns.registry.heartbeat(req.getServerId(), usage);
    HeartbeatResponse.Builder out =
        HeartbeatResponse.newBuilder()
            .setSigningKeys(ns.signingKeys())
            .setDelegationKeys(ns.delegationTokens().keysForDataServers())
            .setMdsEpoch(ns.epoch());
    if (outcome == DataServerRegistry.HeartbeatOutcome.UNKNOWN) {
      return out.setRegisterAgain(true).build();
    }
    List<ChunkState> delete =
        new ArrayList<>(ns.deletions.heartbeat(m, req.getServerId(), MAX_DELETIONS_PER_HEARTBEAT));
    delete.addAll(
        reports.deletionsFor(req.getServerId(), MAX_DELETIONS_PER_HEARTBEAT - delete.size()));
    return out.addAllChunksToDelete(delete).build();
  }

  /**
   * Which of a server's replicas may go: the chunk is gone, the replica's version is older than the
   * chunk's, or the server is not among the chunk's holders.
   */
  public ConfirmChunksResponse confirmChunks(ConfirmChunksRequest req) throws IOException {
    ConfirmChunksResponse.Builder out = ConfirmChunksResponse.newBuilder().setMdsEpoch(ns.epoch());
    for (ChunkState cs : req.getChunksList()) {
      ChunkRecord c =
          ns.chunk(
              ns.store,
              cs.getId().getInodeId(),
              Integer.toUnsignedLong(cs.getId().getChunkIndex()));
      if (c == null
          || cs.getVersion() < c.getVersion()
          || !c.getReplicaServerIdsList().contains(req.getServerId())) {
        out.addDeletable(cs);
      }
    }
    return out.build();
  }
}
