package io.braidfs.mds.server;

import com.google.protobuf.Message;
import io.braidfs.common.rpc.RpcHandler;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.namespace.ClusterOps;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.proto.ChunkReportResponse;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.ReplicaChangesResponse;
import io.braidfs.proto.ReportCorruptReplicasResponse;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds every ClusterService method. Heartbeats run on the mutation thread because answering one
 * may remove finished deletion records (a journaled change); the rest runs on the read pool.
 *
 * <p>Thread-safety: immutable once registered.
 */
final class ClusterHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterHandlers.class);

  private final Namespace ns;
  private final ClusterOps ops;
  private final Journal journal;

  private final Replicator replicator;

  private final ServicePeers peers;

  ClusterHandlers(
      Namespace ns, ClusterOps ops, Journal journal, Replicator replicator, ServicePeers peers) {
    this.peers = peers;
    this.replicator = replicator;
    this.ns = ns;
    this.ops = ops;
    this.journal = journal;
  }

  /** Every ClusterService method is for the cluster's own servers only ({@link ServicePeers}). */
  private <Q extends Message, R extends Message> void handle(
      RpcServer.Builder b, RpcMethod<Q, R> method, RpcHandler<Q, R> handler, Executor executor) {
    b.handle(method, peers.only(handler), executor);
  }

  void register(RpcServer.Builder b, Executor readPool, Executor mutationThread) {
    handle(
        b,
        RpcMethod.REGISTER_DATA_SERVER,
        c -> {
          var response = ops.register(c.request(), c.caller().remoteAddress());
          peers.registered(response.getServerId(), c.caller());
          replicator.retryWaiting(); // a server more may take copies that found no target
          LOG.info(
              "{}: data server {} registered at {}:{}",
              ns,
              response.getServerId(),
              c.request().getHost(),
              c.request().getPort());
          c.reply(response);
        },
        readPool);
    handle(
        b,
        RpcMethod.HEARTBEAT,
        c -> {
          Mutation m = ns.newMutation();
          HeartbeatResponse response;
          try {
            response = ops.heartbeat(m, c.request());
          } catch (java.io.IOException | RuntimeException e) {
            ns.abandoned();
            throw e;
          }
          if (!m.isEmpty()) {
            journal.append("deletions done", m.batch());
          }
          m.applied();
          // The deletions handed out come from records that may not be written yet: no replica
          // goes while its file may still be in the store.
          MutationRunner.afterDurable(journal, c, () -> c.reply(response));
        },
        mutationThread);
    handle(
        b,
        RpcMethod.CHUNK_REPORT,
        c -> {
          replicator.requestChunks(ops.reports().fullReport(c.request()));
          c.reply(ChunkReportResponse.getDefaultInstance());
        },
        readPool);
    handle(b, RpcMethod.CONFIRM_CHUNKS, c -> c.reply(ops.confirmChunks(c.request())), readPool);
    handle(
        b,
        RpcMethod.REPORT_CORRUPT_REPLICAS,
        c -> {
          replicator.requestChunks(
              ops.reports()
                  .corrupt(
                      c.request().getReplicasList(),
                      "ds" + Integer.toUnsignedString(c.request().getServerId())));
          c.reply(ReportCorruptReplicasResponse.getDefaultInstance());
        },
        readPool);
    handle(
        b,
        RpcMethod.REPLICA_CHANGES,
        c -> {
          replicator.requestChunks(ops.reports().changes(c.request()));
          c.reply(ReplicaChangesResponse.getDefaultInstance());
        },
        readPool);
  }
}
