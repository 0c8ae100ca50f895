package io.braidfs.common.security;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloCredentials;
import io.braidfs.proto.DelegationTokenProof;
import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * A client's credentials from a delegation token (a job's task, which has no Kerberos ticket): each
 * Hello proves the token's password with a fresh nonce and the current time, and the server's
 * answer must prove the password back.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class DelegationTokenCredentials implements HelloCredentials {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] identifier;
  private final byte[] password;

  /**
   * @param identifier the token's identifier, as the MDS issued it
   * @param password its password
   * @throws IllegalArgumentException if the identifier does not parse
   */
  public DelegationTokenCredentials(byte[] identifier, byte[] password) {
    DelegationTokenIdentifier.parse(identifier); // fail here, not at every connection
    this.identifier = identifier.clone();
    this.password = password.clone();
  }

  /** The token's fields (owner, renewer, dates), for messages. */
  public DelegationTokenIdentifier identifier() {
    return DelegationTokenIdentifier.parse(identifier);
  }

  @Override
  public Handshake begin(InetSocketAddress server) {
    return new Handshake() {
      private byte[] proof = new byte[0];

      @Override
      public byte[] token() {
        return new byte[0];
      }

      @Override
      public void fill(HelloRequest.Builder hello) {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        long now = System.currentTimeMillis();
        proof =
            DelegationTokenSecrets.clientProof(
                password, hello.getClientId().toByteArray(), now, nonce);
        hello.setDelegationToken(
            DelegationTokenProof.newBuilder()
                .setIdentifier(ByteString.copyFrom(identifier))
                .setTimeMs(now)
                .setNonce(ByteString.copyFrom(nonce))
                .setProof(ByteString.copyFrom(proof)));
      }

      @Override
      public void verify(byte[] reply) throws IOException {
        if (!MessageDigest.isEqual(reply, DelegationTokenSecrets.serverProof(password, proof))) {
          throw StatusExceptions.toIOException(
              Status.NOT_AUTHENTICATED,
              server + " did not prove it knows the delegation token's password",
              null);
        }
      }
    };
  }

  @Override
  public String toString() {
    return "DelegationTokenCredentials[" + identifier() + "]"; // never the password
  }
}
