package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.braidfs.common.error.Status;
import io.braidfs.common.token.ClientId;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.DeletedChunk;
import io.braidfs.mds.store.proto.DeletedChunkList;
import io.braidfs.mds.store.proto.DeletedChunkRange;
import io.braidfs.mds.store.proto.DeletionRecord;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import io.braidfs.mds.store.proto.JournalEntry;
import io.braidfs.mds.store.proto.JournalOp;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.mds.store.proto.OpenForWrite;
import io.braidfs.mds.store.proto.RetryEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The value encodings of {@link Records}: every record survives a round trip with all fields set
 * and with none, garbage is an {@link Status#INTERNAL} {@link StoreException} naming the family and
 * key, and a record carrying a field this code does not know (written by a newer release) still
 * decodes, keeps the field, and writes it back.
 */
class RecordsTest {
  private static final byte[] INODE_KEY = Keys.inode(42);
  private static final byte[] DENTRY_KEY = Keys.dentry(7, "report.csv");
  private static final byte[] CHUNK_KEY = Keys.chunk(42, 3);
  private static final byte[] DELETION_KEY = Keys.deletion(99);
  private static final byte[] RETRY_KEY = Keys.retry(new ClientId(0x0102L, 0x0304L), 17);

  /** Not a protobuf message: a field tag with a varint that never ends. */
  private static final byte[] GARBAGE = {
    0x08, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF
  };

  /** A field number no record uses, as a newer release might add. */
  private static final int UNKNOWN_FIELD = 1000;

  // ---- every field set --------------------------------------------------------------------------

  static InodeRecord fullFile() {
    return InodeRecord.newBuilder()
        .setType(InodeType.INODE_TYPE_REGULAR)
        .setMode(07755)
        .setUid(1000)
        .setGid(0xFFFF_FFFE) // 4294967294 (nfsnobody): unsigned survives
        .setUser("alice")
        .setGroup("staff")
        .setSize(Long.MAX_VALUE)
        .setAtimeNs(-1L) // before the epoch
        .setMtimeNs(1_700_000_000_123_456_789L)
        .setCtimeNs(1_700_000_001_000_000_000L)
        .setNlink(3)
        .setGeneration(-1L) // 2^64 - 1 as unsigned
        .setLayout(layout())
        .setSymlinkTarget("../target/über")
        .setParentId(7)
        .setLayoutPolicy(LayoutRecord.newBuilder().setReplication(2))
        .setOpenForWrite(
            OpenForWrite.newBuilder()
                .setWriterClientId(ByteString.copyFrom(new ClientId(1, 2).toBytes()))
                .setClientName("fuse@host-1"))
        .setBlockSize(32L << 20)
        .setRdev(0xFFFF_FFFF_FFFF_FFFFL) // 2^64 - 1 as unsigned
        .setAllocatedBytes(5L << 30)
        .addAcl(
            io.braidfs.mds.store.proto.AclEntryRecord.newBuilder()
                .setDefaultScope(true)
                .setType(1)
                .setName("bob")
                .setPermission(5))
        .build();
  }

  static LayoutRecord layout() {
    return LayoutRecord.newBuilder()
        .setStripeUnitBytes(1 << 20)
        .setStripeWidth(4)
        .setChunkSizeBytes(64L << 20)
        .setReplication(3)
        .build();
  }

  static DentryValue fullDentry() {
    return DentryValue.newBuilder()
        .setChildId(0xFFFF_FFFF_FFFF_FFF0L)
        .setType(InodeType.INODE_TYPE_DIRECTORY)
        .build();
  }

  static ChunkRecord fullChunk() {
    return ChunkRecord.newBuilder()
        .setVersion(12)
        .setLengthBytes(64L << 20)
        .addAllReplicaServerIds(List.of(3, 1, 0xFFFF_FFFF))
        .build();
  }

  static DeletionRecord fullDeletionList() {
    return DeletionRecord.newBuilder()
        .setInodeId(42)
        .setChunks(
            DeletedChunkList.newBuilder()
                .addChunks(DeletedChunk.newBuilder().setChunkIndex(0).setMaxVersion(5))
                .addChunks(
                    DeletedChunk.newBuilder()
                        .setChunkIndex(-1)
                        .setMaxVersion(9)
                        .addReplicaServerIds(3)
                        .addReplicaServerIds(7)))
        .setEnqueueTimeNs(1_700_000_000_000_000_000L)
        .build();
  }

  static DeletionRecord fullDeletionRange() {
    return DeletionRecord.newBuilder()
        .setInodeId(42)
        .setRange(
            DeletedChunkRange.newBuilder().setFirstIndex(4).setLastIndex(-1).setMaxVersion(77))
        .setEnqueueTimeNs(1)
        .build();
  }

  static RetryEntry fullRetry() {
    return RetryEntry.newBuilder()
        .setStatusCode(Status.LEASE_CONFLICT.code())
        .setResponse(ByteString.copyFrom(new byte[] {0, 1, 2, (byte) 0xFF}))
        .setExpiryMs(1_700_000_600_000L)
        .setMethodId(104)
        .build();
  }

  // ---- round trips ------------------------------------------------------------------------------

  @Test
  void inodeRoundTrips() throws StoreException {
    InodeRecord full = fullFile();
    assertAllFieldsSet(full);
    assertAllFieldsSet(full.getLayout());
    assertAllFieldsSet(full.getOpenForWrite());
    assertThat(Records.decodeInode(INODE_KEY, Records.encode(full))).isEqualTo(full);

    InodeRecord empty = InodeRecord.getDefaultInstance();
    assertThat(Records.encode(empty)).isEmpty();
    InodeRecord decoded = Records.decodeInode(INODE_KEY, Records.encode(empty));
    assertThat(decoded).isEqualTo(empty);
    assertThat(decoded.getType()).isEqualTo(InodeType.INODE_TYPE_UNSPECIFIED);
    assertThat(decoded.hasLayout()).isFalse();
    assertThat(decoded.hasLayoutPolicy()).isFalse();
    assertThat(decoded.hasOpenForWrite()).isFalse();
  }

  @Test
  void presenceOfEmptySubRecordsSurvives() throws StoreException {
    // A directory with a policy that sets nothing, and an open file whose writer sent no name,
    // differ from "no policy" and "closed".
    InodeRecord record =
        InodeRecord.newBuilder()
            .setLayoutPolicy(LayoutRecord.getDefaultInstance())
            .setOpenForWrite(OpenForWrite.getDefaultInstance())
            .build();
    InodeRecord decoded = Records.decodeInode(INODE_KEY, Records.encode(record));
    assertThat(decoded.hasLayoutPolicy()).isTrue();
    assertThat(decoded.hasOpenForWrite()).isTrue();
    assertThat(decoded.hasLayout()).isFalse();
  }

  @Test
  void dentryRoundTrips() throws StoreException {
    assertAllFieldsSet(fullDentry());
    assertThat(Records.decodeDentry(DENTRY_KEY, Records.encode(fullDentry())))
        .isEqualTo(fullDentry());
    assertThat(Records.decodeDentry(DENTRY_KEY, Records.encode(DentryValue.getDefaultInstance())))
        .isEqualTo(DentryValue.getDefaultInstance());
  }

  @Test
  void chunkRoundTrips() throws StoreException {
    assertAllFieldsSet(fullChunk());
    ChunkRecord decoded = Records.decodeChunk(CHUNK_KEY, Records.encode(fullChunk()));
    assertThat(decoded).isEqualTo(fullChunk());
    assertThat(decoded.getReplicaServerIdsList()).containsExactly(3, 1, -1); // order kept
    assertThat(Records.decodeChunk(CHUNK_KEY, Records.encode(ChunkRecord.getDefaultInstance())))
        .isEqualTo(ChunkRecord.getDefaultInstance());
  }

  @Test
  void deletionRoundTrips() throws StoreException {
    DeletionRecord list = fullDeletionList();
    DeletionRecord range = fullDeletionRange();
    assertAllFieldsSet(list.getChunks().getChunks(1));
    assertAllFieldsSet(range.getRange());
    assertThat(Records.decodeDeletion(DELETION_KEY, Records.encode(list))).isEqualTo(list);
    DeletionRecord decodedRange = Records.decodeDeletion(DELETION_KEY, Records.encode(range));
    assertThat(decodedRange).isEqualTo(range);
    assertThat(decodedRange.getTargetCase()).isEqualTo(DeletionRecord.TargetCase.RANGE);

    DeletionRecord empty =
        Records.decodeDeletion(DELETION_KEY, Records.encode(DeletionRecord.getDefaultInstance()));
    assertThat(empty).isEqualTo(DeletionRecord.getDefaultInstance());
    assertThat(empty.getTargetCase()).isEqualTo(DeletionRecord.TargetCase.TARGET_NOT_SET);
  }

  @Test
  void retryRoundTrips() throws StoreException {
    assertAllFieldsSet(fullRetry());
    assertThat(Records.decodeRetry(RETRY_KEY, Records.encode(fullRetry()))).isEqualTo(fullRetry());
    assertThat(Records.decodeRetry(RETRY_KEY, Records.encode(RetryEntry.getDefaultInstance())))
        .isEqualTo(RetryEntry.getDefaultInstance());
  }

  // ---- corruption -------------------------------------------------------------------------------

  @Test
  void garbageIsInternalErrorNamingFamilyAndKey() {
    assertCorrupt(
        () -> Records.decodeInode(INODE_KEY, GARBAGE),
        "inodes key 000000000000002a (inode 42)",
        "InodeRecord");
    assertCorrupt(
        () -> Records.decodeDentry(DENTRY_KEY, GARBAGE),
        "dentries key 0000000000000007"
            + hex("report.csv")
            + " (entry 'report.csv' in directory 7)",
        "DentryValue");
    assertCorrupt(
        () -> Records.decodeChunk(CHUNK_KEY, GARBAGE),
        "chunks key 000000000000002a00000003 (chunk 3 of inode 42)",
        "ChunkRecord");
    assertCorrupt(
        () -> Records.decodeDeletion(DELETION_KEY, GARBAGE),
        "deletions key 0000000000000063 (deletion 99)",
        "DeletionRecord");
    assertCorrupt(
        () -> Records.decodeRetry(RETRY_KEY, GARBAGE),
        "retry key 000000000000010200000000000003040000000000000011 (call 17 of client ",
        "RetryEntry");
  }

  @Test
  void truncatedRecordIsCorrupt() {
    byte[] full = Records.encode(fullFile());
    byte[] truncated = Arrays.copyOf(full, full.length - 1);
    assertCorrupt(() -> Records.decodeInode(INODE_KEY, truncated), "inode 42", "InodeRecord");
  }

  @Test
  void malformedKeyIsStillNamedInHex() {
    byte[] shortKey = {1, 2, 3};
    assertCorrupt(() -> Records.decodeInode(shortKey, GARBAGE), "inodes key 010203 (", "");
  }

  // ---- journal entries --------------------------------------------------------------------------

  private static final byte[] JOURNAL_KEY = Keys.journal(77);

  @Test
  void journalEntryRoundTripsItsBatch() throws StoreException {
    StoreBatch batch =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(2), Records.encode(fullFile()))
            .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "old"))
            .put(ColumnFamily.XATTRS, Keys.xattr(2, "user.empty"), new byte[0])
            .put(ColumnFamily.META, Keys.meta("next-inode-id"), Keys.u64(3))
            .build();
    byte[] value =
        Records.encodeJournalEntry("rename /old /new", 1_767_225_600_000_000_000L, batch);
    JournalEntry entry = Records.decodeJournalEntry(JOURNAL_KEY, value);
    assertThat(entry.getOperation()).isEqualTo("rename /old /new");
    assertThat(entry.getTimeNs()).isEqualTo(1_767_225_600_000_000_000L);
    assertThat(entry.getOps(0).getFamily()).isEqualTo(ColumnFamily.INODES.id());
    assertThat(entry.getOps(1).getDelete()).isTrue();
    assertThat(entry.getOps(2).getDelete()).isFalse();
    StoreBatch decoded = Records.journalBatch(JOURNAL_KEY, entry);
    assertThat(decoded).isEqualTo(batch);
    // Deterministic: encoding what was decoded gives the same bytes.
    assertThat(Records.encodeJournalEntry(entry.getOperation(), entry.getTimeNs(), decoded))
        .isEqualTo(value);
    assertThat(Records.journalBatch(JOURNAL_KEY, JournalEntry.getDefaultInstance()))
        .isSameAs(StoreBatch.empty());
  }

  @Test
  void journalEntriesAreEncodedByteForByteAsProtobufWouldEncodeThem() {
    Random random = new Random(20261123);
    ColumnFamily[] families =
        Arrays.stream(ColumnFamily.values())
            .filter(f -> f != ColumnFamily.JOURNAL)
            .toArray(ColumnFamily[]::new);
    String[] operations = {"", "create /a", "rename /\u00e9t\u00e9 /\ud83d\ude00"};
    long[] times = {0, 1, -1, 1_767_225_600_000_000_000L, Long.MIN_VALUE};
    for (int round = 0; round < 500; round++) {
      StoreBatch.Builder b = StoreBatch.builder();
      int ops = random.nextInt(round % 50 == 0 ? 300 : 12);
      for (int i = 0; i < ops; i++) {
        ColumnFamily family = families[random.nextInt(families.length)];
        // Lengths across the one- and two-byte varint boundary (127/128), empty values included.
        byte[] key = new byte[random.nextInt(141)];
        random.nextBytes(key);
        if (random.nextInt(4) == 0) {
          b.delete(family, key);
        } else {
          byte[] value = new byte[random.nextInt(5) == 0 ? 0 : random.nextInt(20_000)];
          random.nextBytes(value);
          b.put(family, key, value);
        }
      }
      StoreBatch batch = b.build();
      // An unpaired surrogate, as both encoders write it ('?'); rarely, as protobuf logs each one.
      String operation =
          round % 100 == 7 ? "bad \ud800 half" : operations[round % operations.length];
      long timeNs = times[round % times.length];
      JournalEntry.Builder expected =
          JournalEntry.newBuilder().setOperation(operation).setTimeNs(timeNs);
      for (StoreBatch.Op op : batch.ops()) {
        JournalOp.Builder o =
            expected
                .addOpsBuilder()
                .setFamily(op.family().id())
                .setKey(ByteString.copyFrom(op.key()));
        if (op.value() == null) {
          o.setDelete(true);
        } else {
          o.setValue(ByteString.copyFrom(op.value()));
        }
      }
      assertThat(Records.encodeJournalEntry(operation, timeNs, batch))
          .as("round %d: %d ops, operation '%s', time %d", round, ops, operation, timeNs)
          .isEqualTo(expected.build().toByteArray());
    }
  }

  @Test
  void aBatchWritingTheJournalIsNotJournaled() {
    StoreBatch batch =
        StoreBatch.builder().put(ColumnFamily.JOURNAL, Keys.journal(1), new byte[] {1}).build();
    assertThatThrownBy(() -> Records.encodeJournalEntry("forged", 0, batch))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal family");
  }

  @Test
  void corruptJournalEntriesAreInternalErrorsNamingTheKey() {
    assertCorrupt(
        () -> Records.decodeJournalEntry(JOURNAL_KEY, GARBAGE),
        "journal key 000000000000004d (journal record 77)",
        "JournalEntry");
    assertBadOp(JournalOp.newBuilder().setFamily(42).build(), "unknown column family id 42");
    assertBadOp(
        JournalOp.newBuilder().setFamily(ColumnFamily.JOURNAL.id()).build(),
        "writes the journal family");
    assertBadOp(
        JournalOp.newBuilder()
            .setFamily(ColumnFamily.META.id())
            .setKey(ByteString.copyFrom(Keys.APPLIED_INDEX_KEY))
            .setValue(ByteString.copyFrom(Keys.u64(5)))
            .build(),
        "writes meta/applied-index");
    assertBadOp(
        JournalOp.newBuilder()
            .setFamily(ColumnFamily.INODES.id())
            .setKey(ByteString.copyFrom(Keys.inode(1)))
            .setValue(ByteString.copyFromUtf8("x"))
            .setDelete(true)
            .build(),
        "a delete with a value");
  }

  private static void assertBadOp(JournalOp op, String problem) {
    JournalEntry entry =
        JournalEntry.newBuilder()
            .addOps(
                JournalOp.newBuilder()
                    .setFamily(ColumnFamily.INODES.id())
                    .setKey(ByteString.copyFrom(Keys.inode(1))))
            .addOps(op)
            .build();
    assertThatThrownBy(() -> Records.journalBatch(JOURNAL_KEY, entry))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.INTERNAL))
        .hasMessageContaining("corrupt metadata: operation 1 of the JournalEntry")
        .hasMessageContaining("journal key 000000000000004d (journal record 77)")
        .hasMessageContaining(problem);
  }

  // ---- compatibility ----------------------------------------------------------------------------

  @Test
  void recordWithUnknownFieldStillDecodesAndKeepsIt() throws IOException, StoreException {
    List<Message> records =
        List.of(
            fullFile(),
            fullDentry(),
            fullChunk(),
            fullDeletionList(),
            fullDeletionRange(),
            fullRetry());
    for (Message record : records) {
      byte[] newer = withUnknownFields(encodeAs(record));
      Message decoded = decodeAs(record, newer);

      // Every known field reads as before.
      assertThat(withoutUnknown(decoded)).isEqualTo(record);
      // The unknown fields are kept and written back, so an older MDS rewriting the record (say,
      // a setattr) does not drop what a newer one stored.
      assertThat(decoded.getUnknownFields().hasField(UNKNOWN_FIELD)).isTrue();
      assertThat(decoded.getUnknownFields().hasField(UNKNOWN_FIELD + 1)).isTrue();
      assertThat(decoded.toByteArray()).isEqualTo(newer);
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** {@code encoded} followed by a varint field and a length-delimited field of unknown numbers. */
  private static byte[] withUnknownFields(byte[] encoded) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(encoded);
    CodedOutputStream coded = CodedOutputStream.newInstance(out);
    coded.writeUInt64(UNKNOWN_FIELD, 123_456_789L);
    coded.writeBytes(UNKNOWN_FIELD + 1, ByteString.copyFromUtf8("a newer release's data"));
    coded.flush();
    return out.toByteArray();
  }

  private static byte[] encodeAs(Message record) {
    if (record instanceof InodeRecord inode) {
      return Records.encode(inode);
    } else if (record instanceof DentryValue dentry) {
      return Records.encode(dentry);
    } else if (record instanceof ChunkRecord chunk) {
      return Records.encode(chunk);
    } else if (record instanceof DeletionRecord deletion) {
      return Records.encode(deletion);
    } else {
      return Records.encode((RetryEntry) record);
    }
  }

  private static Message decodeAs(Message like, byte[] value) throws StoreException {
    if (like instanceof InodeRecord) {
      return Records.decodeInode(INODE_KEY, value);
    } else if (like instanceof DentryValue) {
      return Records.decodeDentry(DENTRY_KEY, value);
    } else if (like instanceof ChunkRecord) {
      return Records.decodeChunk(CHUNK_KEY, value);
    } else if (like instanceof DeletionRecord) {
      return Records.decodeDeletion(DELETION_KEY, value);
    } else {
      return Records.decodeRetry(RETRY_KEY, value);
    }
  }

  private static Message withoutUnknown(Message message) {
    return message.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
  }

  /** Guards the "all fields set" fixtures: a field added to the proto must be added here too. */
  private static void assertAllFieldsSet(Message message) {
    for (var field : message.getDescriptorForType().getFields()) {
      if (field.getRealContainingOneof() != null) {
        continue; // exactly one member of a oneof is set; the fixtures cover each
      }
      assertThat(
              field.isRepeated()
                  ? message.getRepeatedFieldCount(field) > 0
                  : message.hasField(field))
          .as("%s.%s is set", message.getDescriptorForType().getName(), field.getName())
          .isTrue();
    }
  }

  private static void assertCorrupt(Decode decode, String keyText, String type) {
    assertThatThrownBy(decode::run)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.INTERNAL))
        .hasMessageContaining("corrupt metadata")
        .hasMessageContaining(keyText)
        .hasMessageContaining(type)
        .hasCauseInstanceOf(InvalidProtocolBufferException.class);
  }

  private static String hex(String s) {
    return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
  }

  @FunctionalInterface
  private interface Decode {
    void run() throws StoreException;
  }
}
