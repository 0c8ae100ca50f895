package io.braidfs.mds.namespace;

import io.braidfs.common.rpc.CallerContext;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.lease.ClientId;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * Who issues a namespace operation: the user and groups permissions are checked against, the client
 * instance that holds leases, and its host (for replica ordering).
 *
 * <p>Thread-safety: immutable.
 *
 * @param caller the user and groups
 * @param id the client instance's id (Hello client_id)
 * @param name the client's human-readable name
 * @param host the client's host address, or null when unknown
 */
public record Client(Caller caller, ClientId id, String name, @Nullable String host) {
  /** The client of an RPC connection. */
  public static Client of(CallerContext context) {
    SocketAddress remote = context.remoteAddress();
    String host =
        remote instanceof InetSocketAddress inet
            ? (inet.getAddress() != null
                ? inet.getAddress().getHostAddress()
                : inet.getHostString())
            : null;
    return new Client(
        Caller.of(context), ClientId.of(context.clientId()), context.clientName(), host);
  }
}
