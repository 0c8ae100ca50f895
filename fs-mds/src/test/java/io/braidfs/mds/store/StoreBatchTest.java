package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StoreBatchTest {
  @Test
  void keepsOperationsInOrderAndCountsBytes() {
    StoreBatch batch =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(2), new byte[] {1, 2, 3})
            .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
            .put(ColumnFamily.META, Keys.meta("next-inode-id"), Keys.u64(3))
            .build();
    assertThat(batch.size()).isEqualTo(3);
    assertThat(batch.isEmpty()).isFalse();
    assertThat(batch.payloadBytes()).isEqualTo(8 + 3 + 9 + 13 + 8);
    assertThat(batch.ops())
        .extracting(StoreBatch.Op::family)
        .containsExactly(ColumnFamily.INODES, ColumnFamily.DENTRIES, ColumnFamily.META);
    assertThat(batch.ops().get(1).value()).isNull();
    assertThat(batch).hasToString("StoreBatch[3 ops, 41 bytes]");
  }

  @Test
  void copiesWhatItIsGiven() {
    byte[] key = Keys.inode(7);
    byte[] value = "v1".getBytes(StandardCharsets.UTF_8);
    StoreBatch batch = StoreBatch.builder().put(ColumnFamily.INODES, key, value).build();
    key[7] = 9;
    value[1] = '2';
    assertThat(batch.ops().get(0).key()).isEqualTo(Keys.inode(7));
    assertThat(batch.ops().get(0).value()).isEqualTo("v1".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theAppliedIndexBelongsToTheStore() {
    assertThatThrownBy(
            () ->
                StoreBatch.builder()
                    .put(ColumnFamily.META, Keys.meta("applied-index"), Keys.u64(99)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("written by the store");
    assertThatThrownBy(
            () -> StoreBatch.builder().delete(ColumnFamily.META, Keys.meta("applied-index")))
        .isInstanceOf(IllegalArgumentException.class);
    // The same bytes in another family are an ordinary key.
    assertThat(
            StoreBatch.builder()
                .put(ColumnFamily.XATTRS, Keys.meta("applied-index"), new byte[0])
                .build()
                .size())
        .isEqualTo(1);
  }

  @Test
  void anEmptyBuilderBuildsTheEmptyBatch() {
    assertThat(StoreBatch.builder().build()).isSameAs(StoreBatch.empty());
    assertThat(StoreBatch.empty().isEmpty()).isTrue();
  }

  @Test
  void plusAppendsTheSecondBatchsOperationsWithoutCopying() {
    StoreBatch first =
        StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(1), new byte[] {1}).build();
    StoreBatch second =
        StoreBatch.builder()
            .delete(ColumnFamily.INODES, Keys.inode(1))
            .put(ColumnFamily.JOURNAL, Keys.journal(1), new byte[] {2, 3})
            .build();
    StoreBatch both = first.plus(second);
    assertThat(both.size()).isEqualTo(3);
    assertThat(both.payloadBytes()).isEqualTo(first.payloadBytes() + second.payloadBytes());
    assertThat(both.ops())
        .containsExactly(first.ops().get(0), second.ops().get(0), second.ops().get(1));
    assertThat(both.ops().get(0).key()).isSameAs(first.ops().get(0).key());
    assertThat(first.plus(StoreBatch.empty())).isSameAs(first);
    assertThat(StoreBatch.empty().plus(second)).isSameAs(second);
    assertThat(both.writes(ColumnFamily.JOURNAL)).isTrue();
    assertThat(first.writes(ColumnFamily.JOURNAL)).isFalse();
  }

  @Test
  void batchesAreEqualWhenTheirOperationsAreBytesIncluded() {
    StoreBatch a =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(1), new byte[] {1})
            .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
            .build();
    StoreBatch same =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(1), new byte[] {1})
            .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
            .build();
    assertThat(a).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(a)
        .isNotEqualTo(
            StoreBatch.builder()
                .put(ColumnFamily.INODES, Keys.inode(1), new byte[] {2})
                .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
                .build());
    assertThat(a)
        .isNotEqualTo(
            StoreBatch.builder()
                .put(ColumnFamily.XATTRS, Keys.inode(1), new byte[] {1})
                .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
                .build());
    // A put of an empty value is not a delete.
    assertThat(StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(1), new byte[0]).build())
        .isNotEqualTo(StoreBatch.builder().delete(ColumnFamily.INODES, Keys.inode(1)).build());
    assertThat(a).isNotEqualTo(StoreBatch.empty());
  }
}
