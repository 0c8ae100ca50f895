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
import java.util.function.Supplier;

/**
 * A client's credentials from a delegation token (a job's task, which has no Kerberos ticket): each
 * Hello proves the token's password with a fresh nonce and the current time, and the server's
 * answer must prove the password back.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class DelegationTokenCredentials implements HelloCredentials {
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A token: its identifier and 64-byte password. */
  public record Token(byte[] identifier, byte[] password) {
    public Token {
      identifier = identifier.clone();
      password = password.clone();
    }
  }

  private final Supplier<Token> source;
  private final Predicate<InetSocketAddress> isMds;

  /**
   * Credentials from one token.
   *
   * @param identifier the token's identifier, as the MDS issued it
   * @param password its 64-byte password
   * @param isMds whether an address is one of the cluster's MDSs (else a data server): each is sent
   *     the proof of only the password half it holds
   * @throws IllegalArgumentException if the identifier does not parse or the password is not 64
   *     bytes
   */
  public DelegationTokenCredentials(
      byte[] identifier, byte[] password, Predicate<InetSocketAddress> isMds) {
    Token t = new Token(identifier, password);
    check(t); // fail here, not at every connection
    this.source = () -> t;
    this.isMds = isMds;
  }

  /**
   * Credentials from whatever token {@code source} holds when a connection opens, so that a job
   * whose tokens are replaced (Spark's renewal, a token file rewritten) uses the new one on its
   * next connections.
   */
  public DelegationTokenCredentials(Supplier<Token> source, Predicate<InetSocketAddress> isMds) {
    this.source = source;
    this.isMds = isMds;
  }

  private static void check(Token t) {
    DelegationTokenIdentifier.parse(t.identifier);
    if (t.password.length != 2 * DelegationTokenSecrets.HALF) {
      throw new IllegalArgumentException(
          "a Braid delegation token's password has "
              + 2 * DelegationTokenSecrets.HALF
              + " bytes, not "
              + t.password.length);
    }
  }

  @Override
  public Handshake begin(InetSocketAddress server) throws IOException {
    Token t = source.get();
    try {
      check(t);
    } catch (IllegalArgumentException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED, "unusable delegation token: " + e.getMessage(), e);
    }
    byte[] identifier = t.identifier;
    byte[] password = t.password;
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
    return "DelegationTokenCredentials"; // never the password
  }
}
