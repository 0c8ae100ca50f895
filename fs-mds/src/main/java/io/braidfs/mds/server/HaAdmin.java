package io.braidfs.mds.server;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.mds.ha.StoreSnapshots;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.FailoverRequest;
import io.braidfs.proto.FailoverResponse;
import io.braidfs.proto.HaStatusResponse;
import io.braidfs.proto.MdsRole;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HA calls of {@code braid admin}: HaStatus, which every MDS answers (a standby's NOT_LEADER
 * server too, so that {@code braid admin ha} sees every replica), and Failover, which the leader
 * answers and then hands leadership over. Both read the MDS only through its public accessors
 * (role, epoch, journal index, leader hint, the election's replicas), so they serve the same
 * whether the MDS runs alone, leads or follows.
 *
 * <p>The superuser check of Failover is the caller's ({@link AdminHandlers}): a standby has no
 * namespace to check against, and HaStatus tells nothing about the namespace.
 *
 * <p>Thread-safety: thread-safe; it holds nothing but the MDS and this host's name once looked up.
 */
final class HaAdmin {
  private static final Logger LOG = LoggerFactory.getLogger(HaAdmin.class);

  private final MdsServer mds;
  private final String id;
  private final boolean ha;
  private volatile @Nullable String localHost;

  /**
   * @param mds the MDS whose state is reported
   * @param id its {@code braid.mds.id}
   * @param ha whether it is an HA replica (else a lone MDS: role SINGLE, Failover UNSUPPORTED)
   */
  HaAdmin(MdsServer mds, String id, boolean ha) {
    this.mds = mds;
    this.id = id;
    this.ha = ha;
  }

  /**
   * The calls every replica answers, a standby too: {@link #registerReplicaCalls} registers them.
   */
  static final Set<RpcMethod<?, ?>> REPLICA_CALLS =
      Set.of(RpcMethod.HA_STATUS, RpcMethod.HA_SNAPSHOT, RpcMethod.HA_SNAPSHOT_READ);

  /**
   * Registers HaStatus and, for an HA replica, the store copies a bootstrapping peer reads (only
   * the cluster's own servers may ask: a copy holds every secret of the cluster). {@code executor}
   * may be null (the event loop) where the leader hint is as cheap as the standby's NOT_LEADER
   * answers, which name it too; copies are made and read on their own thread.
   */
  void registerReplicaCalls(RpcServer.Builder b, @Nullable Executor executor) {
    b.handle(RpcMethod.HA_STATUS, c -> c.reply(status()), executor);
    StoreSnapshots copies = mds.snapshots();
    if (copies != null) {
      b.handle(
          RpcMethod.HA_SNAPSHOT,
          mds.servicePeers().only(c -> c.reply(copies.open())),
          copies.executor());
      b.handle(
          RpcMethod.HA_SNAPSHOT_READ,
          mds.servicePeers().only(c -> c.reply(copies.read(c.request()))),
          copies.executor());
    }
  }

  /** This MDS now, as HaStatus answers. */
  HaStatusResponse status() {
    MdsServer.Role r = mds.role();
    return HaStatusResponse.newBuilder()
        .setReplicaId(id)
        .setAddress(address())
        .setRole(role(r, ha))
        .setEpoch(mds.epoch())
        .setJournalIndex(mds.journalIndex())
        .setLeaderHint(ha ? mds.leaderHint() : "")
        .setClusterId(clusterId(r))
        .build();
  }

  /**
   * Failover: checks that leadership can move (this MDS leads under the epoch asked for, another
   * replica is in the election, the target if any is one of them), answers, then hands over on a
   * thread of its own: handing over stops this server, which lets this answer out first.
   *
   * @throws IOException UNSUPPORTED on a lone MDS; INVALID_ARGUMENT when leadership cannot move as
   *     asked
   */
  void failover(ServerCall<FailoverRequest, FailoverResponse> c) throws IOException {
    FailoverRequest q = c.request();
    if (!ha) {
      throw StatusExceptions.toIOException(
          Status.UNSUPPORTED,
          "failover: "
              + id
              + " is a lone MDS (braid.mds.ha.zk is not set): there is no replica to hand"
              + " leadership to");
    }
    if (mds.role() != MdsServer.Role.LEADER) {
      String hint = mds.leaderHint();
      c.fail(
          Status.NOT_LEADER,
          ErrorInfo.newBuilder()
              .setMessage("failover: " + id + " does not lead (" + mds.role() + ")")
              .setLeaderHint(hint)
              .build());
      return;
    }
    long epoch = mds.epoch();
    if (q.getEpoch() != 0 && q.getEpoch() != epoch) {
      throw invalid(
          id
              + " leads under epoch "
              + epoch
              + ", not "
              + q.getEpoch()
              + ": leadership moved since");
    }
    String self = address();
    List<String> others = new ArrayList<>();
    for (String r : mds.replicas()) {
      if (!sameReplica(r, self)) {
        others.add(r);
      }
    }
    if (others.isEmpty()) {
      throw invalid(
          "no other replica to hand over to (the election holds only " + id + " at " + self + ")");
    }
    String target = q.getTarget().strip();
    if (!target.isEmpty()) {
      try {
        HostPort.parse(target);
      } catch (IllegalArgumentException e) {
        throw invalid("target: " + e.getMessage());
      }
      if (sameReplica(target, self)) {
        throw invalid("target " + target + " is this leader, " + id);
      }
      if (others.stream().noneMatch(o -> sameReplica(o, target))) {
        throw invalid(
            "target " + target + " is not in the election (the others are " + others + ")");
      }
    }
    c.reply(
        FailoverResponse.newBuilder().setReplicaId(id).setAddress(self).setEpoch(epoch).build());
    LOG.info(
        "{}: handing leadership over (epoch {}{}), as {} asked",
        id,
        epoch,
        target.isEmpty() ? "" : ", meant for " + target,
        c.caller().user());
    Thread t =
        new Thread(
            () -> {
              try {
                mds.handOver();
              } catch (IOException | RuntimeException e) {
                LOG.warn("{}: could not hand leadership over: {}", id, e.toString());
              }
            },
            "braid-" + id + "-handover");
    t.setDaemon(true);
    t.start();
  }

  private static IOException invalid(String message) {
    return StatusExceptions.toIOException(Status.INVALID_ARGUMENT, "failover: " + message);
  }

  /** The wire role: a lone MDS's LEADER is SINGLE. */
  static MdsRole role(MdsServer.Role r, boolean ha) {
    return switch (r) {
      case STARTING -> MdsRole.MDS_ROLE_STARTING;
      case STANDBY -> MdsRole.MDS_ROLE_STANDBY;
      case TAKING_OVER -> MdsRole.MDS_ROLE_TAKING_OVER;
      case LEADER -> ha ? MdsRole.MDS_ROLE_LEADER : MdsRole.MDS_ROLE_SINGLE;
      case REJOINING -> MdsRole.MDS_ROLE_REJOINING;
      case STOPPED -> MdsRole.MDS_ROLE_STOPPING;
    };
  }

  private String clusterId(MdsServer.Role r) {
    if (r == MdsServer.Role.STOPPED) {
      return ""; // its store may be closing
    }
    try {
      return r == MdsServer.Role.LEADER
          ? mds.namespace().clusterId()
          : Namespace.storedClusterId(mds.cache());
    } catch (IOException | IllegalStateException e) {
      return ""; // not started, or its store cannot say now
    }
  }

  /**
   * This MDS's address as the election names HA replicas (HaReplica's rule): the bound address, or
   * this host's name when bound to the wildcard address; empty before it listens.
   */
  private String address() {
    InetSocketAddress bound;
    try {
      bound = mds.address();
    } catch (IllegalStateException e) {
      return "";
    }
    InetAddress a = bound.getAddress();
    if (a != null && !a.isAnyLocalAddress()) {
      return HostPort.of(bound).toString();
    }
    String host = localHost;
    if (host == null) {
      try {
        host = InetAddress.getLocalHost().getCanonicalHostName();
      } catch (IOException e) {
        host = "localhost";
      }
      localHost = host;
    }
    return host + ":" + bound.getPort();
  }

  /** Whether two {@code host:port}s name the same endpoint (a host name and its address do). */
  static boolean sameReplica(String a, String b) {
    try {
      return HostPort.parse(a).toSocketAddress().equals(HostPort.parse(b).toSocketAddress());
    } catch (IllegalArgumentException e) {
      return a.equals(b);
    }
  }
}
