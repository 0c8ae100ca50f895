package io.braidfs.mds.lease;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * The 16 random bytes a client instance sends in its hello ({@link
 * io.braidfs.common.rpc.CallerContext#clientId()}), as a value usable as a map key: a lease is held
 * by a client instance, not by a user, so two processes of one user conflict.
 *
 * <p>Thread-safety: immutable.
 */
public final class ClientId {
  /** The length of a client id in bytes. */
  public static final int LENGTH = 16;

  private final long high;
  private final long low;

  private ClientId(long high, long low) {
    this.high = high;
    this.low = low;
  }

  /**
   * The client id with these bytes (copied).
   *
   * @throws IllegalArgumentException if {@code bytes} is not {@value #LENGTH} bytes long
   */
  public static ClientId of(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException(
          "a client id has " + LENGTH + " bytes, this one " + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    return new ClientId(b.getLong(), b.getLong());
  }

  /** The 16 bytes, in a new array. */
  public byte[] toBytes() {
    return ByteBuffer.allocate(LENGTH).putLong(high).putLong(low).array();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClientId other && other.high == high && other.low == low;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(high) * 31 + Long.hashCode(low);
  }

  /** The 32 lowercase hex digits. */
  @Override
  public String toString() {
    return HexFormat.of().toHexDigits(high) + HexFormat.of().toHexDigits(low);
  }
}
