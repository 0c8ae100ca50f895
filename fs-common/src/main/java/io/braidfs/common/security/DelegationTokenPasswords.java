package io.braidfs.common.security;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Where a server finds a delegation token's password: the MDS from its token table (so a cancelled
 * or unrenewed token is refused), a data server from the delegation keys the MDS sent it (so only
 * the token's max date is known there; the capability tokens the MDS issues are what grant access).
 *
 * <p>Thread-safety: implementations must be thread-safe; called on event loops.
 */
public interface DelegationTokenPasswords {
  /**
   * The half of a live token's password this server checks ({@link #dataServer}).
   *
   * @param id the parsed identifier
   * @param identifier its bytes
   * @param nowMs this server's clock
   * @throws IOException NOT_AUTHENTICATED naming why the token is not accepted (unknown key,
   *     expired, cancelled)
   */
  byte[] passwordOf(DelegationTokenIdentifier id, byte[] identifier, long nowMs) throws IOException;

  /**
   * Whether this server is a data server, which holds and checks only the data servers' half of a
   * password ({@link DelegationTokenSecrets#password}); false for an MDS.
   */
  default boolean dataServer() {
    return false;
  }

  /**
   * Why the token with this sequence number may no longer be used on a connection it opened
   * (cancelled, expired); null while it may, or where this server cannot tell.
   */
  default @Nullable String revoked(int sequence, long nowMs) {
    return null;
  }
}
