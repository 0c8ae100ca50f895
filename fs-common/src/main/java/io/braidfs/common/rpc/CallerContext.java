package io.braidfs.common.rpc;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
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
 * @param realUser the authenticated principal's own user name: {@code user}, unless a proxy user
 *     acts for {@code user}; empty where Hellos are taken as claimed
 */
public record CallerContext(
    byte[] clientId,
    String clientName,
    String user,
    List<String> groups,
    SocketAddress remoteAddress,
    String principal,
    String realUser) {
  /** A caller whose Hello was taken as claimed. */
  public CallerContext(
      byte[] clientId,
      String clientName,
      String user,
      List<String> groups,
      SocketAddress remoteAddress) {
    this(clientId, clientName, user, groups, remoteAddress, "", "");
  }

  /** Whether an authenticated service acts for another user on this connection. */
  public boolean proxied() {
    return authenticated() && !realUser.equals(user);
  }

  /**
   * The client id of an authenticated connection: its Hello's id bound to the principal and user it
   * proved (the first 16 bytes of SHA-256 over the three), so that every server derives the same id
   * for the same client, and a capability token issued to one principal's client does not work for
   * another principal claiming the same client id.
   */
  public static byte[] boundClientId(byte[] claimed, String principal, String user) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(claimed);
      sha.update((byte) 0);
      sha.update(principal.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(user.getBytes(StandardCharsets.UTF_8));
      return Arrays.copyOf(sha.digest(), claimed.length);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
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
