package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LastWritesTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String describe(StoreBatch.Op op) {
    return op.family()
        + ":"
        + Keys.readU64(op.key(), 0)
        + "="
        + (op.value() == null ? "-" : new String(op.value(), StandardCharsets.UTF_8));
  }

  @Test
  void keepsOnlyTheLastOperationOnEachKeyInOrder() {
    List<StoreBatch> batches =
        List.of(
            StoreBatch.builder()
                .put(ColumnFamily.META, Keys.u64(1), bytes("a"))
                .put(ColumnFamily.INODES, Keys.u64(2), bytes("b"))
                .put(ColumnFamily.META, Keys.u64(1), bytes("c"))
                .build(),
            StoreBatch.builder()
                .put(ColumnFamily.CHUNKS, Keys.u64(2), bytes("d"))
                .delete(ColumnFamily.INODES, Keys.u64(2))
                .build(),
            StoreBatch.empty(),
            StoreBatch.builder()
                .put(ColumnFamily.META, Keys.u64(1), bytes("e"))
                .put(ColumnFamily.INODES, Keys.u64(3), bytes("f"))
                .build());

    assertThat(LastWrites.of(batches))
        .extracting(LastWritesTest::describe)
        .containsExactly("CHUNKS:2=d", "INODES:2=-", "META:1=e", "INODES:3=f");
  }

  @Test
  void distinctKeysAreAllKeptAsTheyAre() {
    StoreBatch one =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.u64(1), bytes("a"))
            .delete(ColumnFamily.INODES, Keys.u64(2))
            .build();
    StoreBatch two =
        StoreBatch.builder().put(ColumnFamily.DENTRIES, Keys.u64(1), bytes("b")).build();

    List<StoreBatch.Op> ops = LastWrites.of(List.of(one, two));

    assertThat(ops)
        .extracting(LastWritesTest::describe)
        .containsExactly("INODES:1=a", "INODES:2=-", "DENTRIES:1=b");
    assertThat(ops.get(0)).isSameAs(one.ops().get(0));
    assertThat(LastWrites.of(List.of(StoreBatch.empty()))).isEmpty();
  }
}
