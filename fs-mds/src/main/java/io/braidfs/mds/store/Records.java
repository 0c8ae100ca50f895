package io.braidfs.mds.store;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.WireFormat;
import io.braidfs.common.error.Status;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.DeletionRecord;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.JournalEntry;
import io.braidfs.mds.store.proto.JournalOp;
import io.braidfs.mds.store.proto.RetryEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

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
 *   <tr><td>journal</td><td>{@link JournalEntry}, holding a {@link StoreBatch} as {@link
 *       JournalOp}s</td></tr>
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

  /**
   * The {@link ColumnFamily#JOURNAL} value of a mutation named {@code operation}, built at {@code
   * timeNs} (nanoseconds since the epoch), that writes {@code batch}. The encoding depends only on
   * the arguments, so encoding a record read back gives the same bytes.
   *
   * @throws IllegalArgumentException if {@code batch} writes the journal family
   */
  public static byte[] encodeJournalEntry(String operation, long timeNs, StoreBatch batch) {
    // Written field by field, as JournalEntry.toByteArray() would write it (fields in number
    // order, defaults left out), without building a message per op: this runs for every record
    // on the journal's write thread. RecordsTest checks the bytes against protobuf's own.
    List<StoreBatch.Op> ops = batch.ops();
    byte[] name = operation.getBytes(StandardCharsets.UTF_8);
    int[] opSizes = new int[ops.size()];
    int size = name.length == 0 ? 0 : CodedOutputStream.computeByteArraySize(1, name);
    size += timeNs == 0 ? 0 : CodedOutputStream.computeInt64Size(2, timeNs);
    for (int i = 0; i < opSizes.length; i++) {
      StoreBatch.Op op = ops.get(i);
      if (op.family() == ColumnFamily.JOURNAL) {
        throw new IllegalArgumentException(
            "a journaled batch cannot write the journal family itself: " + operation);
      }
      int opSize = CodedOutputStream.computeUInt32Size(1, op.family().id()); // ids are never 0
      opSize += op.key().length == 0 ? 0 : CodedOutputStream.computeByteArraySize(2, op.key());
      byte[] value = op.value();
      if (value == null) {
        opSize += CodedOutputStream.computeBoolSize(4, true);
      } else if (value.length > 0) {
        opSize += CodedOutputStream.computeByteArraySize(3, value);
      }
      opSizes[i] = opSize;
      size +=
          CodedOutputStream.computeTagSize(3) + CodedOutputStream.computeUInt32SizeNoTag(opSize);
      size += opSize;
    }
    byte[] out = new byte[size];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      if (name.length > 0) {
        o.writeByteArray(1, name);
      }
      if (timeNs != 0) {
        o.writeInt64(2, timeNs);
      }
      for (int i = 0; i < opSizes.length; i++) {
        StoreBatch.Op op = ops.get(i);
        o.writeTag(3, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        o.writeUInt32NoTag(opSizes[i]);
        o.writeUInt32(1, op.family().id());
        if (op.key().length > 0) {
          o.writeByteArray(2, op.key());
        }
        byte[] value = op.value();
        if (value == null) {
          o.writeBool(4, true);
        } else if (value.length > 0) {
          o.writeByteArray(3, value);
        }
      }
      if (o.spaceLeft() != 0) {
        throw new IOException(o.spaceLeft() + " bytes left over");
      }
    } catch (IOException e) {
      throw new IllegalStateException("journal entry of " + size + " bytes miscounted", e);
    }
    return out;
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

  /**
   * The journal record stored at {@link ColumnFamily#JOURNAL} key {@code key} ({@link
   * Keys#journal}); {@link #journalBatch} gives its writes.
   *
   * @throws StoreException of {@link Status#INTERNAL} if {@code value} does not parse
   */
  public static JournalEntry decodeJournalEntry(byte[] key, byte[] value) throws StoreException {
    return decode(ColumnFamily.JOURNAL, key, value, JournalEntry.parser(), "JournalEntry");
  }

  /**
   * The writes of {@code entry}, read from {@link ColumnFamily#JOURNAL} key {@code key}, as a batch
   * that applies them (the keys and values are copied out of the entry once).
   *
   * @throws StoreException of {@link Status#INTERNAL}, naming the key, if an operation names a
   *     family this release does not know or the journal family, writes the store's applied index,
   *     or is a delete carrying a value
   */
  public static StoreBatch journalBatch(byte[] key, JournalEntry entry) throws StoreException {
    List<StoreBatch.Op> ops = new ArrayList<>(entry.getOpsCount());
    for (int i = 0; i < entry.getOpsCount(); i++) {
      JournalOp op = entry.getOps(i);
      ColumnFamily family = ColumnFamily.byId(op.getFamily());
      byte[] opKey = op.getKey().toByteArray();
      String problem = null;
      if (family == null) {
        problem = "names unknown column family id " + Integer.toUnsignedString(op.getFamily());
      } else if (family == ColumnFamily.JOURNAL) {
        problem = "writes the journal family";
      } else if (family == ColumnFamily.META && Arrays.equals(opKey, Keys.APPLIED_INDEX_KEY)) {
        problem = "writes meta/" + Keys.APPLIED_INDEX;
      } else if (op.getDelete() && !op.getValue().isEmpty()) {
        problem = "is a delete with a value";
      }
      if (family == null || problem != null) {
        throw new StoreException(
            Status.INTERNAL,
            "corrupt metadata: operation "
                + i
                + " of the JournalEntry at "
                + ColumnFamily.JOURNAL.cfName()
                + " key "
                + describeKey(ColumnFamily.JOURNAL, key)
                + " "
                + problem,
            null);
      }
      ops.add(
          new StoreBatch.Op(family, opKey, op.getDelete() ? null : op.getValue().toByteArray()));
    }
    return StoreBatch.ofOwned(ops);
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
            case JOURNAL ->
                key.length == Keys.U64_BYTES
                    ? "journal record " + Long.toUnsignedString(Keys.journalIndex(key))
                    : null;
            case XATTRS, META -> null;
          };
      return decoded == null ? hex : hex + " (" + decoded + ")";
    } catch (IllegalArgumentException malformedKey) {
      return hex;
    }
  }
}
