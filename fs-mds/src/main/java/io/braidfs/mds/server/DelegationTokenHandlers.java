package io.braidfs.mds.server;

import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.mds.namespace.DelegationTokens;
import io.braidfs.proto.CancelDelegationTokenResponse;
import io.braidfs.proto.RenewDelegationTokenResponse;
import java.util.concurrent.Executor;

/**
 * Binds the delegation-token methods of MetadataService to {@link DelegationTokens}: each a
 * mutation, journalled before it is answered, so tokens survive restarts and follow failover.
 *
 * <p>Thread-safety: stateless after construction.
 */
final class DelegationTokenHandlers {
  private final DelegationTokens tokens;
  private final MutationRunner runner;

  DelegationTokenHandlers(DelegationTokens tokens, MutationRunner runner) {
    this.tokens = tokens;
    this.runner = runner;
  }

  void register(RpcServer.Builder b, Executor mutationThread) {
    b.handle(
        RpcMethod.GET_DELEGATION_TOKEN,
        c ->
            runner.run(
                c,
                "getdelegationtoken",
                r -> "",
                (m, client, r) -> tokens.issue(m, c.caller(), r.getRenewer())),
        mutationThread);
    b.handle(
        RpcMethod.RENEW_DELEGATION_TOKEN,
        c ->
            runner.run(
                c,
                "renewdelegationtoken",
                r -> "",
                (m, client, r) ->
                    RenewDelegationTokenResponse.newBuilder()
                        .setExpiresMs(tokens.renew(m, c.caller(), r.getIdentifier().toByteArray()))
                        .build()),
        mutationThread);
    b.handle(
        RpcMethod.CANCEL_DELEGATION_TOKEN,
        c ->
            runner.run(
                c,
                "canceldelegationtoken",
                r -> "",
                (m, client, r) -> {
                  tokens.cancel(m, c.caller(), r.getIdentifier().toByteArray());
                  return CancelDelegationTokenResponse.getDefaultInstance();
                }),
        mutationThread);
  }
}
