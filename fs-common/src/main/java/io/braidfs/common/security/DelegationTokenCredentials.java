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
import java.util.function.Predicate;

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
  private final Predicate<InetSocketAddress> isMds;

  /**
   * @param identifier the token's identifier, as the MDS issued it
   * @param password its 64-byte password
   * @param isMds whether an address is one of the cluster's MDSs (else a data server): each is sent
   *     the proof of only the password half it holds
   * @throws IllegalArgumentException if the identifier does not parse or the password is not 64
   *     bytes
   */
  public DelegationTokenCredentials(
      byte[] identifier, byte[] password, Predicate<InetSocketAddress> isMds) {
    DelegationTokenIdentifier.parse(identifier); // fail here, not at every connection
    if (password.length != 2 * DelegationTokenSecrets.HALF) {
      throw new IllegalArgumentException(
          "a Braid delegation token's password has "
              + 2 * DelegationTokenSecrets.HALF
              + " bytes, not "
              + password.length);
    }
    this.identifier = identifier.clone();
    this.password = password.clone();
    this.isMds = isMds;
  }

  /** The token's fields (owner, renewer, dates), for messages. */
  public DelegationTokenIdentifier identifier() {
    return DelegationTokenIdentifier.parse(identifier);
  }

  @Override
  public Handshake begin(InetSocketAddress server) {
    boolean toMds = isMds.test(server);
    byte[] half =
        toMds
            ? DelegationTokenSecrets.mdsHalf(password)
            : DelegationTokenSecrets.dataServerHalf(password);
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
                half, toMds, hello.getClientId().toByteArray(), now, nonce);
        DelegationTokenProof.Builder b =
            DelegationTokenProof.newBuilder()
                .setIdentifier(ByteString.copyFrom(identifier))
                .setTimeMs(now)
                .setNonce(ByteString.copyFrom(nonce));
        hello.setDelegationToken(
            toMds
                ? b.setProof(ByteString.copyFrom(proof))
                : b.setDataServerProof(ByteString.copyFrom(proof)));
      }

      @Override
      public void verify(byte[] reply) throws IOException {
        if (!MessageDigest.isEqual(reply, DelegationTokenSecrets.serverProof(half, proof))) {
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
