package io.braidfs.common.rpc;

import java.net.SocketAddress;
import java.util.List;

/**
 * Who is calling: established once per connection by its Hello and passed to every handler.
 *
 * @param clientId 16 random bytes chosen by the client instance; with the call id it identifies a
 *     call across retries and reconnections
 * @param clientName a human-readable name for logs
 * @param user the user the client acts for
 * @param groups the user's groups
 * @param remoteAddress the peer's socket address
 * @param principal the principal the peer authenticated as; empty where Hellos are taken as claimed
 *     ({@code braid.security.authentication=simple})
 */
public record CallerContext(
    byte[] clientId,
    String clientName,
    String user,
    List<String> groups,
    SocketAddress remoteAddress,
    String principal) {
  /** A caller whose Hello was taken as claimed. */
  public CallerContext(
      byte[] clientId,
      String clientName,
      String user,
      List<String> groups,
      SocketAddress remoteAddress) {
    this(clientId, clientName, user, groups, remoteAddress, "");
  }

  /** Whether the peer proved who it is (Kerberos), rather than claimed it. */
  public boolean authenticated() {
    return !principal.isEmpty();
  }

  public CallerContext {
    clientId = clientId.clone();
    groups = List.copyOf(groups);
  }

  @Override
  public byte[] clientId() {
    return clientId.clone();
  }

  @Override
  public String toString() {
    return user + "@" + clientName + "(" + remoteAddress + ")";
  }
}
