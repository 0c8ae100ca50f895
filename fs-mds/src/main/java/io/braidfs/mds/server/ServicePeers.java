package io.braidfs.mds.server;

import com.google.protobuf.Message;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.rpc.RpcHandler;
import io.braidfs.common.security.Security;
import java.util.function.Predicate;

/**
 * Who may make the calls only the cluster's own servers make (registering as a data server,
 * heartbeats, which carry the token signing keys, chunk reports): with Kerberos, callers
 * authenticated as one of {@code braid.security.service-users}; with simple authentication, anyone,
 * as nothing is proven.
 *
 * <p>Thread-safety: immutable.
 */
final class ServicePeers {
  private final boolean required;
  private final Predicate<CallerContext> peer;
  private final String users;

  private ServicePeers(boolean required, Predicate<CallerContext> peer, String users) {
    this.required = required;
    this.peer = peer;
    this.users = users;
  }

  static ServicePeers from(BraidConfig config) {
    return new ServicePeers(
        Security.kerberos(config), Security.servicePeer(config), Security.serviceUsers(config));
  }

  /** {@code handler}, refusing callers that are not the cluster's servers first. */
  <Q extends Message, R extends Message> RpcHandler<Q, R> only(RpcHandler<Q, R> handler) {
    if (!required) {
      return handler;
    }
    return call -> {
      if (!peer.test(call.caller())) {
        throw StatusExceptions.toIOException(
            Status.PERMISSION_DENIED,
            call.method()
                + " is for the cluster's own servers (braid.security.service-users: "
                + users
                + "); "
                + call.caller()
                + " is not one",
            null);
      }
      handler.handle(call);
    };
  }
}
