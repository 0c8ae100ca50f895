package io.braidfs.mds.server;

import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.namespace.AdminOps;
import io.braidfs.mds.namespace.Client;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.proto.SetServerStateResponse;
import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * Binds every AdminService method: fsck and the report on the read pool, server states on the
 * mutation thread (they are journaled), each answered once durable; HaStatus and Failover ({@link
 * HaAdmin}) on the read pool, Failover for the superuser only.
 *
 * <p>Thread-safety: immutable once registered.
 */
final class AdminHandlers {
  private final AdminOps admin;
  private final Replicator replicator;
  private final Journal journal;
  private final Namespace ns;
  private final HaAdmin ha;

  AdminHandlers(AdminOps admin, Replicator replicator, Journal journal, Namespace ns, HaAdmin ha) {
    this.admin = admin;
    this.replicator = replicator;
    this.journal = journal;
    this.ns = ns;
    this.ha = ha;
  }

  void register(RpcServer.Builder b, Executor readPool, Executor mutationThread) {
    b.handle(
        RpcMethod.FSCK,
        c -> {
          var out = admin.fsck(Client.of(c.caller()).caller(), c.request());
          c.reply(out.toBuilder().setRepairQueue(replicator.waiting()).build());
        },
        readPool);
    b.handle(
        RpcMethod.CLUSTER_REPORT,
        c ->
            c.reply(
                admin.report(
                    Client.of(c.caller()).caller(),
                    replicator::copiesInFlight,
                    replicator.waiting(),
                    replicator.copiesInFlight())),
        readPool);
    b.handle(
        RpcMethod.SET_SERVER_STATE,
        c -> {
          Mutation m = ns.newMutation();
          DataServer s;
          try {
            s = admin.setState(m, Client.of(c.caller()).caller(), c.request());
          } catch (IOException | RuntimeException e) {
            ns.abandoned();
            throw e;
          }
          journal.append("server state", m.batch());
          m.applied();
          // Draining and recommissioning change what counts: look at what the server holds.
          replicator.requestChunks(ns.holderIndex().chunksOf(s.id()));
          replicator.retryWaiting();
          DataServer now = ns.registry().server(s.id());
          DataServer shown = now != null ? now : s;
          MutationRunner.afterDurable(
              journal,
              c,
              () ->
                  c.reply(
                      SetServerStateResponse.newBuilder()
                          .setServer(
                              admin.serverReport(shown, replicator.copiesInFlight(shown.id())))
                          .build()));
        },
        mutationThread);
    ha.registerReplicaCalls(b, readPool); // the leader hint may ask ZooKeeper
    b.handle(
        RpcMethod.FAILOVER,
        c -> {
          admin.checkSuperuser(Client.of(c.caller()).caller(), "failover");
          ha.failover(c);
        },
        readPool);
  }
}
