package io.braidfs.client;

import io.braidfs.common.security.DelegationTokenIdentifier;

/**
 * A delegation token as the MDS issued it: what a job's tasks authenticate with in place of a
 * Kerberos ticket ({@link BraidClient.Builder#delegationToken}). Hadoop's {@code Token} carries the
 * same identifier and password.
 *
 * @param identifier the token's identifier (Hadoop's AbstractDelegationTokenIdentifier form)
 * @param password its password: a secret, hand it only to the job
 * @param expiresMs when it expires unless renewed, ms since the epoch
 */
public record DelegationToken(byte[] identifier, byte[] password, long expiresMs) {
  public DelegationToken {
    identifier = identifier.clone();
    password = password.clone();
  }

  @Override
  public byte[] identifier() {
    return identifier.clone();
  }

  @Override
  public byte[] password() {
    return password.clone();
  }

  /** The identifier's fields: owner, renewer, dates, sequence number. */
  public DelegationTokenIdentifier fields() {
    return DelegationTokenIdentifier.parse(identifier);
  }

  @Override
  public String toString() {
    return "DelegationToken[" + fields() + ", expires " + expiresMs + "]"; // never the password
  }
}
