package io.braidfs.mds.server;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcHandler;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.SecurityConfigKeys;
import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

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
  private final Set<String> users;

  private ServicePeers(boolean required, Set<String> users) {
    this.required = required;
    this.users = Set.copyOf(users);
  }

  static ServicePeers from(BraidConfig config) {
    return new ServicePeers(
        Security.kerberos(config),
        Arrays.stream(config.get(SecurityConfigKeys.SERVICE_USERS).split(","))
            .map(String::trim)
            .filter(u -> !u.isEmpty())
            .collect(Collectors.toSet()));
  }

  /** {@code handler}, refusing callers that are not the cluster's servers first. */
  <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message>
      RpcHandler<Q, R> only(RpcHandler<Q, R> handler) {
    if (!required) {
      return handler;
    }
    return call -> {
      check(call);
      handler.handle(call);
    };
  }

  private void check(ServerCall<?, ?> call) throws IOException {
    if (!call.caller().authenticated() || !users.contains(call.caller().user())) {
      throw StatusExceptions.toIOException(
          Status.PERMISSION_DENIED,
          call.method()
              + " is for the cluster's own servers (braid.security.service-users: "
              + String.join(",", users)
              + "); "
              + call.caller()
              + " is not one",
          null);
    }
  }
}
