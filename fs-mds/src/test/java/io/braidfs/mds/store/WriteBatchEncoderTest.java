package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The Java encoding against RocksDB itself: byte for byte against RocksDB's encoding of the same
 * operations in the default family (the only one a batch without a database can name), and in any
 * family as RocksDB's own parser reads the bytes back.
 */
@ExtendWith(NoNativeLeaks.class)
class WriteBatchEncoderTest {
  /** Family ids around the varint boundaries; 0 is the default family, written without an id. */
  private static final int[] FAMILIES = {0, 1, 5, 127, 128, 200, 16_384};

  /** Lengths around the varint boundaries (1, 2 and 3 bytes). */
  private static final int[] LENGTHS = {0, 1, 8, 127, 128, 300, 16_383, 16_384, 70_000};

  @Test
  void defaultFamilyBatchesEncodeAsRocksDbEncodesThem() throws RocksDBException {
    Random random = new Random(20261122);
    WriteBatchEncoder encoder = new WriteBatchEncoder();
    for (int round = 0; round < 100; round++) {
      encoder.clear(); // reused, as the store reuses it
      try (ManagedNative<WriteBatch> reference =
          ManagedNatives.writeBatch(new byte[WriteBatchEncoder.HEADER])) {
        int ops = random.nextInt(40);
        for (int i = 0; i < ops; i++) {
          byte[] key = bytes(random);
          if (random.nextInt(4) == 0) {
            encoder.delete(0, key);
            reference.get().delete(key);
          } else {
            byte[] value = bytes(random);
            encoder.put(0, key, value);
            reference.get().put(key, value);
          }
        }
        assertThat(encoder.count()).isEqualTo(ops);
        assertThat(encoder.toBytes())
            .as("round %d, %d operations", round, ops)
            .isEqualTo(reference.get().data());
      }
    }
  }

  @Test
  void rocksDbReadsBackEveryOperationInEveryFamily() throws RocksDBException {
    Random random = new Random(22112026);
    WriteBatchEncoder encoder = new WriteBatchEncoder();
    for (int round = 0; round < 100; round++) {
      encoder.clear();
      List<String> expected = new ArrayList<>();
      int ops = random.nextInt(40);
      for (int i = 0; i < ops; i++) {
        int family = FAMILIES[random.nextInt(FAMILIES.length)];
        byte[] key = bytes(random);
        if (random.nextInt(4) == 0) {
          encoder.delete(family, key);
          expected.add(op("delete", family, key, null));
        } else {
          byte[] value = bytes(random);
          encoder.put(family, key, value);
          expected.add(op("put", family, key, value));
        }
      }
      byte[] encoded = encoder.toBytes();
      try (ManagedNative<WriteBatch> decoded = ManagedNatives.writeBatch(encoded);
          Recorder read = new Recorder()) {
        assertThat(decoded.get().count()).isEqualTo(ops);
        decoded.get().iterate(read);
        assertThat(read.ops).as("round %d", round).isEqualTo(expected);
        assertThat(decoded.get().data()).isEqualTo(encoded);
      }
    }
  }

  @Test
  void anEmptyBatchIsTheHeaderAlone() {
    WriteBatchEncoder encoder = new WriteBatchEncoder();
    encoder.put(3, new byte[] {1}, new byte[] {2});
    encoder.clear();
    assertThat(encoder.count()).isZero();
    assertThat(encoder.toBytes()).hasSize(WriteBatchEncoder.HEADER).containsOnly(0);
  }

  private static byte[] bytes(Random random) {
    byte[] b = new byte[LENGTHS[random.nextInt(LENGTHS.length)]];
    random.nextBytes(b);
    return b;
  }

  private static String op(String kind, int family, byte[] key, byte[] value) {
    HexFormat hex = HexFormat.of();
    return kind
        + " "
        + family
        + " "
        + hex.formatHex(key)
        + (value == null ? "" : " " + hex.formatHex(value));
  }

  /** What RocksDB's parser reports, as {@link #op} strings; anything else fails the test. */
  private static final class Recorder extends WriteBatch.Handler {
    final List<String> ops = new ArrayList<>();

    @Override
    public void put(int family, byte[] key, byte[] value) {
      ops.add(op("put", family, key, value));
    }

    @Override
    public void put(byte[] key, byte[] value) {
      ops.add(op("put", 0, key, value));
    }

    @Override
    public void delete(int family, byte[] key) {
      ops.add(op("delete", family, key, null));
    }

    @Override
    public void delete(byte[] key) {
      ops.add(op("delete", 0, key, null));
    }

    private void unexpected(String what) {
      ops.add("unexpected " + what);
    }

    @Override
    public void merge(int family, byte[] key, byte[] value) {
      unexpected("merge");
    }

    @Override
    public void merge(byte[] key, byte[] value) {
      unexpected("merge");
    }

    @Override
    public void singleDelete(int family, byte[] key) {
      unexpected("singleDelete");
    }

    @Override
    public void singleDelete(byte[] key) {
      unexpected("singleDelete");
    }

    @Override
    public void deleteRange(int family, byte[] begin, byte[] end) {
      unexpected("deleteRange");
    }

    @Override
    public void deleteRange(byte[] begin, byte[] end) {
      unexpected("deleteRange");
    }

    @Override
    public void logData(byte[] blob) {
      unexpected("logData");
    }

    @Override
    public void putBlobIndex(int family, byte[] key, byte[] value) {
      unexpected("putBlobIndex");
    }

    @Override
    public void markBeginPrepare() {
      unexpected("markBeginPrepare");
    }

    @Override
    public void markEndPrepare(byte[] xid) {
      unexpected("markEndPrepare");
    }

    @Override
    public void markNoop(boolean emptyBatch) {
      unexpected("markNoop");
    }

    @Override
    public void markRollback(byte[] xid) {
      unexpected("markRollback");
    }

    @Override
    public void markCommit(byte[] xid) {
      unexpected("markCommit");
    }

    @Override
    public void markCommitWithTimestamp(byte[] xid, byte[] ts) {
      unexpected("markCommitWithTimestamp");
    }
  }
}
