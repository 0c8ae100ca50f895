package io.braidfs.common.security;

import java.io.IOException;

/**
 * Where a server finds a delegation token's password: the MDS from its token table (so a cancelled
 * or unrenewed token is refused), a data server from the delegation keys the MDS sent it (so only
 * the token's max date is known there; the capability tokens the MDS issues are what grant access).
 *
 * <p>Thread-safety: implementations must be thread-safe; called on event loops.
 */
public interface DelegationTokenPasswords {
  /**
   * The password of a live token.
   *
   * @param id the parsed identifier
   * @param identifier its bytes
   * @param nowMs this server's clock
   * @throws IOException NOT_AUTHENTICATED naming why the token is not accepted (unknown key,
   *     expired, cancelled)
   */
  byte[] passwordOf(DelegationTokenIdentifier id, byte[] identifier, long nowMs) throws IOException;
}
