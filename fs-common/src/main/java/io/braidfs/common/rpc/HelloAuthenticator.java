package io.braidfs.common.rpc;

import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decides whom a connection's Hello speaks for, on a server that authenticates its peers (see
 * {@code io.braidfs.common.security}). Without one, a server takes the Hello's user and groups as
 * claimed.
 *
 * <p>Thread-safety: implementations must be thread-safe; called on event loops, once per
 * connection.
 */
public interface HelloAuthenticator {
  /**
   * Who the peer is.
   *
   * @param user the user its requests act as
   * @param groups that user's groups, primary first
   * @param principal the authenticated principal, for logs and for servers' peer checks
   * @param realUser the principal's own user name: {@code user} unless a proxy user acts for {@code
   *     user}
   * @param replyToken what the Hello answer carries back for the client to authenticate the server
   */
  record Identity(
      String user, List<String> groups, String principal, String realUser, byte[] replyToken) {
    public Identity {
      groups = List.copyOf(groups);
      replyToken = replyToken.clone();
    }
  }

  /**
   * Authenticates a Hello.
   *
   * @throws IOException carrying {@code NOT_AUTHENTICATED} (no or a bad credential) or {@code
   *     PERMISSION_DENIED} (authenticated, but claiming another user); the connection is then
   *     answered with that status and closed
   */
  Identity authenticate(HelloRequest hello, SocketAddress remote) throws IOException;

  /**
   * Why a connection this authenticator accepted may no longer call (its credential was revoked,
   * such as a cancelled delegation token), checked before every call; null while it may. The call
   * is then refused {@code NOT_AUTHENTICATED} and the connection closed.
   */
  default @Nullable String revoked(CallerContext caller) {
    return null;
  }
}
