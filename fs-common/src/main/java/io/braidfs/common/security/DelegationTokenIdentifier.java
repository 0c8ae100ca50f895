package io.braidfs.common.security;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * What a delegation token says: whose it is, who may renew it, when it was issued and when it ends
 * for good, its sequence number and the MDS key its password derives from.
 *
 * <p>The bytes are exactly Hadoop's {@code AbstractDelegationTokenIdentifier} Writable form
 * (version byte 0, three {@code Text}s, two vlongs, two vints), so that Hadoop's tools and Spark
 * read a Braid token with Hadoop's own class and the MDS reads it without Hadoop
 * (ha-meta-security.md section 5.1; docs/protocol.md section 2).
 *
 * @param owner the user the token acts for
 * @param renewer the user who may renew it
 * @param realUser the proxy user who asked for it for {@code owner}, or empty
 * @param issueMs when it was issued, ms since the epoch
 * @param maxMs when it ends whatever renewals, ms since the epoch
 * @param sequence its number, unique per cluster
 * @param keyId the delegation key its password is derived from
 */
public record DelegationTokenIdentifier(
    String owner,
    String renewer,
    String realUser,
    long issueMs,
    long maxMs,
    int sequence,
    int keyId) {
  /** The token kind Hadoop files it under. */
  public static final String KIND = "BRAID_DELEGATION_TOKEN";

  private static final byte VERSION = 0;

  /** Hadoop's {@code Text.DEFAULT_MAX_LEN}, which its reader refuses to exceed. */
  private static final int MAX_TEXT = 1024 * 1024;

  /** The Writable bytes. */
  public byte[] toBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    out.write(VERSION);
    writeText(out, owner);
    writeText(out, renewer);
    writeText(out, realUser);
    writeVLong(out, issueMs);
    writeVLong(out, maxMs);
    writeVLong(out, sequence);
    writeVLong(out, keyId);
    return out.toByteArray();
  }

  /**
   * Reads the Writable bytes.
   *
   * @throws IllegalArgumentException naming what is wrong if they are not a version-0 identifier
   */
  public static DelegationTokenIdentifier parse(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    try {
      byte version = in.get();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown delegation token version " + version);
      }
      DelegationTokenIdentifier id =
          new DelegationTokenIdentifier(
              readText(in),
              readText(in),
              readText(in),
              readVLong(in),
              readVLong(in),
              Math.toIntExact(readVLong(in)),
              Math.toIntExact(readVLong(in)));
      if (in.hasRemaining()) {
        throw new IllegalArgumentException(
            in.remaining() + " bytes after the delegation token identifier");
      }
      return id;
    } catch (BufferUnderflowException | ArithmeticException e) {
      throw new IllegalArgumentException("a truncated or malformed delegation token identifier");
    }
  }

  private static void writeText(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    writeVLong(out, b.length);
    out.write(b, 0, b.length);
  }

  private static String readText(ByteBuffer in) {
    long n = readVLong(in);
    if (n < 0 || n > MAX_TEXT || n > in.remaining()) {
      throw new IllegalArgumentException("a delegation token field of " + n + " bytes");
    }
    ByteBuffer b = in.slice(in.position(), (int) n);
    in.position(in.position() + (int) n);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(b)
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("a delegation token field that is not UTF-8");
    }
  }

  /** Hadoop's {@code WritableUtils.writeVLong} (vints are the same encoding). */
  private static void writeVLong(ByteArrayOutputStream out, long value) {
    long i = value;
    if (i >= -112 && i <= 127) {
      out.write((int) i);
      return;
    }
    int len = -112;
    if (i < 0) {
      i ^= -1L;
      len = -120;
    }
    for (long tmp = i; tmp != 0; tmp >>= 8) {
      len--;
    }
    out.write(len);
    len = len < -120 ? -(len + 120) : -(len + 112);
    for (int idx = len; idx != 0; idx--) {
      int shift = (idx - 1) * 8;
      out.write((int) ((i >> shift) & 0xFF));
    }
  }

  /** Hadoop's {@code WritableUtils.readVLong}. */
  private static long readVLong(ByteBuffer in) {
    byte first = in.get();
    int len = first >= -112 ? 1 : (first < -120 ? -119 - first : -111 - first);
    if (len == 1) {
      return first;
    }
    long i = 0;
    for (int idx = 0; idx < len - 1; idx++) {
      i = (i << 8) | (in.get() & 0xFF);
    }
    boolean negative = first < -120 || (first >= -112 && first < 0);
    return negative ? i ^ -1L : i;
  }
}
