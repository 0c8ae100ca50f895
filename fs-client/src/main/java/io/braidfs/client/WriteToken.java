package io.braidfs.client;

import com.google.protobuf.ByteString;

/**
 * Proof, while it is valid, that its holder opened a file for writing: what {@link
 * BraidOutputStream#writeToken()} hands out and {@link BraidClient#truncate(String, long,
 * WriteToken)} shows the MDS, so that a truncate through a descriptor open for writing is checked
 * against that open rather than the file's mode (ftruncate(2)). Opaque: only the MDS, which signed
 * it, reads it; it names the client and the file it was issued for.
 *
 * <p>Thread-safety: immutable.
 */
public final class WriteToken {
  private static final WriteToken NONE = new WriteToken(ByteString.EMPTY);

  private final ByteString bytes;

  WriteToken(ByteString bytes) {
    this.bytes = bytes;
  }

  /** No token: a truncate is checked against the file's mode. */
  public static WriteToken none() {
    return NONE;
  }

  /**
   * A token from its bytes, as {@link #toByteArray()} gave them (a token kept or passed on); the
   * MDS ignores one it did not sign for this client and file, and checks the mode instead.
   */
  public static WriteToken of(byte[] bytes) {
    return bytes.length == 0 ? NONE : new WriteToken(ByteString.copyFrom(bytes));
  }

  /** Whether this is {@link #none()}. */
  public boolean isEmpty() {
    return bytes.isEmpty();
  }

  /** The token's bytes, a copy. */
  public byte[] toByteArray() {
    return bytes.toByteArray();
  }

  ByteString bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WriteToken t && t.bytes.equals(bytes);
  }

  @Override
  public int hashCode() {
    return bytes.hashCode();
  }

  /** The length only: a token is a credential. */
  @Override
  public String toString() {
    return "WriteToken[" + bytes.size() + " bytes]";
  }
}
