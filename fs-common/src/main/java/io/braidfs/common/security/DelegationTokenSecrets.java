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

  /** Bytes in each half of a key and of a password. */
  public static final int HALF = 32;

  private DelegationTokenSecrets() {}

  /**
   * The password of the token {@code identifier} under the 64-byte delegation key {@code key}: the
   * MAC under the key's first half (the MDS's, which only the MDS holds) followed by the MAC under
   * its second half (the one data servers receive). A Hello proves only the half its server holds,
   * so a data server's keys, or a Hello sent to one, never let anyone in at the MDS.
   */
  public static byte[] password(byte[] key, byte[] identifier) {
    byte[] out = new byte[2 * HALF];
    System.arraycopy(mac(mdsHalf(key), identifier), 0, out, 0, HALF);
    System.arraycopy(mac(dataServerHalf(key), identifier), 0, out, HALF, HALF);
    return out;
  }

  /** The half of a key or a password the MDS uses. */
  public static byte[] mdsHalf(byte[] keyOrPassword) {
    return java.util.Arrays.copyOfRange(keyOrPassword, 0, HALF);
  }

  /** The half of a key or a password data servers use. */
  public static byte[] dataServerHalf(byte[] keyOrPassword) {
    return java.util.Arrays.copyOfRange(keyOrPassword, HALF, 2 * HALF);
  }

  /** The data servers' half of the password of {@code identifier} under a key's half. */
  public static byte[] halfPassword(byte[] keyHalf, byte[] identifier) {
    return mac(keyHalf, identifier);
  }

  /**
   * What a Hello carries to prove it holds a password's half (the one its server holds; {@code
   * toMds} says which, and is part of the proof).
   */
  public static byte[] clientProof(
      byte[] passwordHalf, boolean toMds, byte[] clientId, long timeMs, byte[] nonce) {
    return mac(
        passwordHalf,
        CLIENT_LABEL,
        new byte[] {(byte) (toMds ? 1 : 2)},
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
