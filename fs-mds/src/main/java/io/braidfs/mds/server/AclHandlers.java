package io.braidfs.mds.server;

import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.namespace.AclOps;
import java.util.concurrent.Executor;

/**
 * Binds MetadataService's ACL methods: SetAcl a journalled mutation (audited as {@code setfacl}),
 * GetAcl a read on the read pool.
 *
 * <p>Thread-safety: stateless after construction.
 */
final class AclHandlers {
  private final AclOps acls;
  private final MutationRunner runner;

  AclHandlers(AclOps acls, MutationRunner runner) {
    this.acls = acls;
    this.runner = runner;
  }

  void register(RpcServer.Builder b, Executor readPool, Executor mutationThread) {
    b.handle(
        RpcMethod.SET_ACL,
        c -> runner.run(c, "setfacl", r -> r.getPath(), acls::setAcl),
        mutationThread);
    b.handle(
        RpcMethod.GET_ACL, c -> c.reply(acls.getAcl(Caller.of(c.caller()), c.request())), readPool);
  }
}
