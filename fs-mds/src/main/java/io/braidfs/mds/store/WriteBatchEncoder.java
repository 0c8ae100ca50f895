package io.braidfs.mds.store;

import java.util.Arrays;

/**
 * Encodes a RocksDB write batch in Java, in RocksDB's own format, so that a store write crosses
 * into native code once ({@link ManagedNatives#writeBatch(byte[])}) rather than once per put or
 * delete: each {@code WriteBatch.put} is a JNI call that also copies its key and value into fresh
 * native buffers, about a tenth of the journal's write thread (docs/benchmarks.md).
 *
 * <p>The format (RocksDB {@code db/write_batch.cc}): a 12-byte header, the sequence number
 * (fixed64, 0: RocksDB assigns it) and the record count (fixed32), both little-endian; then per
 * record a tag byte, the column family id as a varint32 unless it is the default family (0), and
 * the key and (for a put) the value, each as a varint32 length and the bytes. Tags: put 0x01 and
 * delete 0x00 in the default family, 0x05 and 0x04 in another. {@code WriteBatchEncoderTest} checks
 * the bytes against RocksDB's own encoding of the same operations.
 *
 * <p>Thread-safety: not thread-safe; the store's writes are serialized and reuse one encoder.
 */
final class WriteBatchEncoder {
  static final int HEADER = 12;
  private static final byte PUT = 0x01;
  private static final byte DELETE = 0x00;
  private static final byte FAMILY_PUT = 0x05;
  private static final byte FAMILY_DELETE = 0x04;

  /** The buffer's size at rest; one grown by a larger batch is dropped at the next clear. */
  private static final int INITIAL = 64 << 10;

  private byte[] buf = new byte[INITIAL];
  private int pos = HEADER;
  private int count;

  /** Starts an empty batch. The sequence number's 8 bytes are never written, so they stay 0. */
  void clear() {
    if (buf.length > INITIAL) {
      buf = new byte[INITIAL];
    }
    pos = HEADER;
    count = 0;
  }

  /** Adds a put of {@code key} to {@code value} in the family with id {@code familyId}. */
  void put(int familyId, byte[] key, byte[] value) {
    ensure(1 + 5 + 5 + 5 + (long) key.length + value.length);
    tag(familyId, PUT, FAMILY_PUT);
    bytes(key);
    bytes(value);
    count++;
  }

  /** Adds a delete of {@code key} in the family with id {@code familyId}. */
  void delete(int familyId, byte[] key) {
    ensure(1 + 5 + 5 + (long) key.length);
    tag(familyId, DELETE, FAMILY_DELETE);
    bytes(key);
    count++;
  }

  /** The number of records added since {@link #clear()}. */
  int count() {
    return count;
  }

  /** The encoded batch, in a new array. */
  byte[] toBytes() {
    buf[8] = (byte) count;
    buf[9] = (byte) (count >>> 8);
    buf[10] = (byte) (count >>> 16);
    buf[11] = (byte) (count >>> 24);
    return Arrays.copyOf(buf, pos);
  }

  private void tag(int familyId, byte defaultTag, byte familyTag) {
    if (familyId == 0) {
      buf[pos++] = defaultTag;
    } else {
      buf[pos++] = familyTag;
      varint(familyId);
    }
  }

  private void bytes(byte[] b) {
    varint(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  private void varint(int v) {
    while ((v & ~0x7F) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  /** Makes room for {@code more} bytes; a batch beyond an array's reach fails the write. */
  private void ensure(long more) {
    if (buf.length - pos < more) {
      long size = Math.max(2L * buf.length, pos + more);
      if (size > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("write batch of more than 2 GiB");
      }
      buf = Arrays.copyOf(buf, (int) size);
    }
  }
}
