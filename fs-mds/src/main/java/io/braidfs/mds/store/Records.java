package io.braidfs.mds.store;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.braidfs.common.error.Status;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.DeletionRecord;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.RetryEntry;
import java.util.HexFormat;

/**
 * The value encodings of the column families, in one place: each record of {@code store.proto}
 * (package {@link io.braidfs.mds.store.proto}) to the {@code byte[]} a {@link StoreBatch} puts, and
 * back.
 *
 * <table>
 *   <caption>Values by column family</caption>
 *   <tr><th>family</th><th>value</th></tr>
 *   <tr><td>inodes</td><td>{@link InodeRecord}</td></tr>
 *   <tr><td>dentries</td><td>{@link DentryValue}</td></tr>
 *   <tr><td>chunks</td><td>{@link ChunkRecord}</td></tr>
 *   <tr><td>deletions</td><td>{@link DeletionRecord}</td></tr>
 *   <tr><td>retry</td><td>{@link RetryEntry}</td></tr>
 * </table>
 *
 * <p>Decoding checks the encoding only (protobuf well-formedness), not meaning: a record with
 * default fields decodes, and the namespace layer checks what it needs (such as a type that is not
 * unspecified). Unknown fields, written by a newer release, are kept and written back unchanged. A
 * value that does not parse is corrupt metadata: the decoders throw a {@link StoreException} of
 * {@link Status#INTERNAL} naming the family and key, and the MDS must stop rather than carry on.
 *
 * <p>Thread-safety: stateless.
 */
public final class Records {
  private Records() {}

  // ---- encode -----------------------------------------------------------------------------------

  /** The {@link ColumnFamily#INODES} value of {@code record}. */
  public static byte[] encode(InodeRecord record) {
    return record.toByteArray();
  }

  /** The {@link ColumnFamily#DENTRIES} value of {@code record}. */
  public static byte[] encode(DentryValue record) {
    return record.toByteArray();
  }

  /** The {@link ColumnFamily#CHUNKS} value of {@code record}. */
  public static byte[] encode(ChunkRecord record) {
    return record.toByteArray();
  }

  /** The {@link ColumnFamily#DELETIONS} value of {@code record}. */
  public static byte[] encode(DeletionRecord record) {
    return record.toByteArray();
  }

  /** The {@link ColumnFamily#RETRY} value of {@code record}. */
  public static byte[] encode(RetryEntry record) {
    return record.toByteArray();
  }

  // ---- decode -----------------------------------------------------------------------------------

  /**
   * The inode stored at {@link ColumnFamily#INODES} key {@code key} ({@link Keys#inode}).
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static InodeRecord decodeInode(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.INODES, key, value, InodeRecord.parser(), "InodeRecord");
  }

  /**
   * The entry stored at {@link ColumnFamily#DENTRIES} key {@code key} ({@link Keys#dentry}).
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static DentryValue decodeDentry(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.DENTRIES, key, value, DentryValue.parser(), "DentryValue");
  }

  /**
   * The chunk stored at {@link ColumnFamily#CHUNKS} key {@code key} ({@link Keys#chunk}).
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static ChunkRecord decodeChunk(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.CHUNKS, key, value, ChunkRecord.parser(), "ChunkRecord");
  }

  /**
   * The queued deletion stored at {@link ColumnFamily#DELETIONS} key {@code key} ({@link
   * Keys#deletion}).
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static DeletionRecord decodeDeletion(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.DELETIONS, key, value, DeletionRecord.parser(), "DeletionRecord");
  }

  /**
   * The retry-cache entry stored at {@link ColumnFamily#RETRY} key {@code key} ({@link
   * Keys#retry}).
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static RetryEntry decodeRetry(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.RETRY, key, value, RetryEntry.parser(), "RetryEntry");
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private static <T extends MessageLite> T decode(
      ColumnFamily family, byte[] key, byte[] value, Parser<T> parser, String type)
      throws StoreException {
    try {
      return parser.parseFrom(value);
    } catch (InvalidProtocolBufferException e) {
      throw new StoreException(
          Status.INTERNAL,
          "corrupt metadata: the value at "
              + family.cfName()
              + " key "
              + describeKey(family, key)
              + " ("
              + value.length
              + " bytes) is not a valid "
              + type
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The key in hex, with its decoded form when it is well-formed for {@code family}. */
  static String describeKey(ColumnFamily family, byte[] key) {
    String hex = HexFormat.of().formatHex(key);
    try {
      String decoded =
          switch (family) {
            case INODES -> "inode " + Long.toUnsignedString(Keys.inodeOf(key));
            case DENTRIES ->
                "entry '"
                    + Keys.dentryName(key)
                    + "' in directory "
                    + Long.toUnsignedString(Keys.dentryParent(key));
            case CHUNKS ->
                "chunk "
                    + Integer.toUnsignedString(Keys.chunkIndex(key))
                    + " of inode "
                    + Long.toUnsignedString(Keys.chunkInode(key));
            case RETRY ->
                "call "
                    + Long.toUnsignedString(Keys.retryCall(key))
                    + " of client "
                    + Keys.retryClient(key);
            case DELETIONS ->
                key.length == Keys.U64_BYTES
                    ? "deletion " + Long.toUnsignedString(Keys.readU64(key, 0))
                    : null;
            case XATTRS, META -> null;
          };
      return decoded == null ? hex : hex + " (" + decoded + ")";
    } catch (IllegalArgumentException malformedKey) {
      return hex;
    }
  }
}
