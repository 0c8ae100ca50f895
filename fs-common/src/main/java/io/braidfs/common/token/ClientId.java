package io.braidfs.common.token;

/**
 * The 16 random bytes a client chooses once per instance and sends in its hello ({@code
 * HelloRequest.client_id}), held as two big-endian longs so that it compares and hashes by value.
 *
 * <p>Thread-safety: immutable.
 *
 * @param high bytes 0-7, big-endian
 * @param low bytes 8-15, big-endian
 */
public record ClientId(long high, long low) {
  /** Bytes in a client id. */
  public static final int LENGTH = 16;

  /**
   * The client id with these bytes.
   *
   * @throws IllegalArgumentException if {@code bytes.length != 16}
   */
  public static ClientId of(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException(
          "a client id has " + LENGTH + " bytes, not " + bytes.length);
    }
    return new ClientId(readLong(bytes, 0), readLong(bytes, 8));
  }

  /** The 16 bytes, in a new array. */
  public byte[] toBytes() {
    byte[] bytes = new byte[LENGTH];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (high >>> (56 - 8 * i));
      bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
    }
    return bytes;
  }

  /** The 32 lower-case hex digits of the bytes. */
  @Override
  public String toString() {
    return String.format("%016x%016x", high, low);
  }

  private static long readLong(byte[] bytes, int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (bytes[offset + i] & 0xFF);
    }
    return value;
  }
}
