package io.braidfs.mds.server;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.rpc.RpcHandler;
import io.braidfs.common.security.Security;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Who may make the calls only the cluster's own servers make (registering as a data server,
 * heartbeats, which carry the token signing keys, chunk reports): with Kerberos, callers
 * authenticated as one of {@code braid.security.service-users}; with simple authentication, anyone,
 * as nothing is proven.
 *
 * <p>With Kerberos, a data server's id is bound to the principal that registered it: calls naming
 * that id ({@code server_id}) from another principal, and a registration claiming it, are refused,
 * so one server's credentials cannot take over another's id and chunks. The binding lives as long
 * as this MDS process; after a restart or failover the first registration binds again.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ServicePeers {
  private final boolean required;
  private final Predicate<CallerContext> peer;
  private final String users;
  private final ConcurrentHashMap<Integer, String> principals = new ConcurrentHashMap<>();

  private ServicePeers(boolean required, Predicate<CallerContext> peer, String users) {
    this.required = required;
    this.peer = peer;
    this.users = users;
  }

  static ServicePeers from(BraidConfig config) {
    return new ServicePeers(
        Security.kerberos(config), Security.servicePeer(config), Security.serviceUsers(config));
  }

  /** Binds {@code serverId} to the principal that registered it (with Kerberos). */
  void registered(int serverId, CallerContext caller) {
    if (required && caller.authenticated()) {
      principals.putIfAbsent(serverId, caller.principal());
    }
  }

  /** The request's {@code server_id}, which every ClusterService request has; 0 if unset. */
  private static int serverId(Message request) {
    FieldDescriptor f = request.getDescriptorForType().findFieldByName("server_id");
    return f == null ? 0 : (Integer) request.getField(f);
  }

  /** {@code handler}, refusing callers that are not the cluster's servers first. */
  <Q extends Message, R extends Message> RpcHandler<Q, R> only(RpcHandler<Q, R> handler) {
    if (!required) {
      return handler;
    }
    return call -> {
      CallerContext caller = call.caller();
      if (!peer.test(caller)) {
        throw StatusExceptions.toIOException(
            Status.PERMISSION_DENIED,
            call.method()
                + " is for the cluster's own servers (braid.security.service-users: "
                + users
                + "); "
                + caller
                + " is not one",
            null);
      }
      int id = serverId(call.request());
      String bound = id == 0 ? null : principals.get(id);
      if (bound != null && !bound.equals(caller.principal())) {
        throw StatusExceptions.toIOException(
            Status.PERMISSION_DENIED,
            call.method()
                + ": data server "
                + Integer.toUnsignedString(id)
                + " registered as "
                + bound
                + ", not "
                + caller.principal(),
            null);
      }
      handler.handle(call);
    };
  }
}
