package io.braidfs.common.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The arithmetic of delegation tokens: a token's password is the HMAC-SHA256 of its identifier
 * under an MDS delegation key (so any server holding the key can check a token without asking the
 * MDS), and a Hello proves the password by a MAC over the connection's client id, a time and a
 * nonce, never by sending it.
 *
 * <p>Thread-safety: stateless.
 */
public final class DelegationTokenSecrets {
  private static final byte[] CLIENT_LABEL = "braid-dt-v1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SERVER_LABEL =
      "braid-dt-v1-server".getBytes(StandardCharsets.US_ASCII);

  private DelegationTokenSecrets() {}

  /** The password of the token {@code identifier} under delegation key {@code key}. */
  public static byte[] password(byte[] key, byte[] identifier) {
    return mac(key, identifier);
  }

  /** What a Hello carries to prove it holds {@code password}. */
  public static byte[] clientProof(byte[] password, byte[] clientId, long timeMs, byte[] nonce) {
    return mac(
        password,
        CLIENT_LABEL,
        clientId,
        ByteBuffer.allocate(Long.BYTES).putLong(timeMs).array(),
        nonce);
  }

  /** What the server answers to prove it knows {@code password} too. */
  public static byte[] serverProof(byte[] password, byte[] clientProof) {
    return mac(password, SERVER_LABEL, clientProof);
  }

  private static byte[] mac(byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      for (byte[] p : parts) {
        // Length-prefixed, so that no two different part lists hash the same bytes.
        mac.update(ByteBuffer.allocate(Integer.BYTES).putInt(p.length).array());
        mac.update(p);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }
}
