package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every {@link MetadataStore} meets, run against each implementation by a subclass
 * (HOUSE-STYLE: one suite for the RocksDB store and any in-memory fake).
 */
@ExtendWith(NoNativeLeaks.class)
abstract class AbstractMetadataStoreTest {
  @TempDir Path dir;

  /** The store under test; started by {@link #openStore()}, closed after each test. */
  protected MetadataStore store;

  /** A new, not yet started store keeping its data in {@code dir}. */
  protected abstract MetadataStore newStore(Path dir);

  @BeforeEach
  void openStore() throws IOException {
    store = newStore(dir);
    store.start();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void aNewStoreIsEmptyAtIndexZero() throws IOException {
    assertThat(store.appliedIndex()).isZero();
    assertThat(store.isWritable()).isTrue();
    for (ColumnFamily family : ColumnFamily.values()) {
      ScanPage page = store.scan(family, new byte[0], null, 10);
      if (family == ColumnFamily.META) {
        assertThat(page.entries()).allMatch(e -> !"applied-index".equals(utf8(e.key())));
      } else {
        assertThat(page.entries()).isEmpty();
      }
      assertThat(page.hasMore()).isFalse();
      assertThat(page.cursor()).isNull();
    }
  }

  @Test
  void applyWritesEveryFamilyAndRecordsTheIndex() throws IOException {
    StoreBatch.Builder b = StoreBatch.builder();
    for (ColumnFamily family : ColumnFamily.values()) {
      b.put(family, key(family), bytes(family.cfName()));
    }
    store.apply(b.build(), 1);
    assertThat(store.appliedIndex()).isEqualTo(1);
    for (ColumnFamily family : ColumnFamily.values()) {
      assertThat(store.get(family, key(family))).isEqualTo(bytes(family.cfName()));
    }
    // Families are separate key spaces.
    assertThat(store.get(ColumnFamily.CHUNKS, Keys.inode(1))).isNull();

    store.apply(StoreBatch.builder().delete(ColumnFamily.INODES, Keys.inode(1)).build(), 2);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(1))).isNull();
    assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))).isNotNull();
    assertThat(store.appliedIndex()).isEqualTo(2);
  }

  @Test
  void laterOperationsOnAKeyWin() throws IOException {
    byte[] k = Keys.inode(5);
    store.apply(
        StoreBatch.builder()
            .put(ColumnFamily.INODES, k, bytes("a"))
            .delete(ColumnFamily.INODES, k)
            .put(ColumnFamily.INODES, Keys.inode(6), bytes("x"))
            .build(),
        1);
    assertThat(store.get(ColumnFamily.INODES, k)).isNull();
    store.applyAll(
        List.of(
            StoreBatch.builder().put(ColumnFamily.INODES, k, bytes("b")).build(),
            StoreBatch.builder().delete(ColumnFamily.INODES, Keys.inode(6)).build(),
            StoreBatch.builder().put(ColumnFamily.INODES, k, bytes("c")).build()),
        2);
    assertThat(store.get(ColumnFamily.INODES, k)).isEqualTo(bytes("c"));
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(6))).isNull();
    assertThat(store.appliedIndex()).isEqualTo(4);
    // The same key bytes in another family are another key; a put after a delete restores.
    store.applyAll(
        List.of(
            StoreBatch.builder()
                .put(ColumnFamily.CHUNKS, k, bytes("chunk"))
                .delete(ColumnFamily.INODES, k)
                .build(),
            StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(6), bytes("y")).build(),
            StoreBatch.builder().delete(ColumnFamily.INODES, Keys.inode(6)).build(),
            StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(6), bytes("z")).build()),
        5);
    assertThat(store.get(ColumnFamily.INODES, k)).isNull();
    assertThat(store.get(ColumnFamily.CHUNKS, k)).isEqualTo(bytes("chunk"));
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(6))).isEqualTo(bytes("z"));
    assertThat(store.appliedIndex()).isEqualTo(8);
  }

  @Test
  void journalIndexesMustIncreaseButMayJump() throws IOException {
    store.apply(StoreBatch.empty(), 5);
    assertThatThrownBy(() -> store.apply(StoreBatch.empty(), 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not after applied 5");
    assertThatThrownBy(() -> store.apply(StoreBatch.empty(), 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.applyAll(List.of(), 9))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> store.applyAll(List.of(StoreBatch.empty(), StoreBatch.empty()), Long.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
    // A refused index is a caller bug, not a store failure.
    assertThat(store.isWritable()).isTrue();
    store.apply(StoreBatch.empty(), 100);
    assertThat(store.appliedIndex()).isEqualTo(100);
  }

  @Test
  void pagedScansReturnEveryEntryOnceInOrder() throws IOException {
    int n = 5000;
    TreeSet<String> names = new TreeSet<>();
    List<StoreBatch> batches = new ArrayList<>();
    StoreBatch.Builder b = StoreBatch.builder();
    for (int i = 0; i < n; i++) {
      String name = "f" + Integer.toString(i * 7919 % 100_003, 36) + (i % 3 == 0 ? "\u00E9" : "");
      names.add(name);
      b.put(ColumnFamily.DENTRIES, Keys.dentry(256, name), Keys.u64(i));
      if (i % 500 == 499) {
        batches.add(b.build());
        b = StoreBatch.builder();
      }
    }
    // Neighbours that must never show up: the directories just before and after, and the last.
    for (long other : new long[] {255, 257, -1}) {
      b.put(ColumnFamily.DENTRIES, Keys.dentry(other, "f0"), Keys.u64(other));
      b.put(ColumnFamily.DENTRIES, Keys.dentry(other, "\uDBFF\uDFFF"), Keys.u64(other));
    }
    batches.add(b.build());
    store.applyAll(batches, 1);

    for (int limit : new int[] {1, 7, 1000, n, n + 1}) {
      List<String> listed = new ArrayList<>();
      int pages = 0;
      byte @Nullable [] cursor = null;
      ScanPage page;
      do {
        page = store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(256), cursor, limit);
        pages++;
        assertThat(page.size()).isLessThanOrEqualTo(limit);
        for (ScanPage.Entry e : page.entries()) {
          assertThat(Keys.dentryParent(e.key())).isEqualTo(256);
          listed.add(Keys.dentryName(e.key()));
        }
        cursor = page.cursor();
      } while (page.hasMore());
      assertThat(listed).as("limit %d", limit).containsExactlyElementsOf(names);
      assertThat(pages).as("pages at limit %d", limit).isEqualTo((n + limit - 1) / limit);
    }

    // The last directory has no upper bound and still sees only its own entries.
    ScanPage last = store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(-1), null, 10);
    assertThat(last.entries())
        .extracting(e -> Keys.dentryName(e.key()))
        .containsExactly("f0", "\uDBFF\uDFFF");
    // An empty prefix covers the whole family.
    assertThat(store.scan(ColumnFamily.DENTRIES, new byte[0], null, 100_000).size())
        .isEqualTo(n + 6);
  }

  @Test
  void aScanResumesAfterACursorWhoseKeyWasDeleted() throws IOException {
    StoreBatch.Builder b = StoreBatch.builder();
    for (String name : List.of("a", "b", "c", "d")) {
      b.put(ColumnFamily.DENTRIES, Keys.dentry(1, name), bytes(name));
    }
    store.apply(b.build(), 1);
    ScanPage first = store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 2);
    assertThat(first.hasMore()).isTrue();
    store.apply(StoreBatch.builder().delete(ColumnFamily.DENTRIES, Keys.dentry(1, "b")).build(), 2);
    ScanPage second = store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), first.cursor(), 2);
    assertThat(second.entries()).extracting(e -> utf8(e.value())).containsExactly("c", "d");
    assertThat(second.hasMore()).isFalse();
  }

  @Test
  void scanArgumentsAreChecked() {
    assertThatThrownBy(() -> store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), Keys.dentry(2, "x"), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cursor");
  }

  @Test
  void returnedValuesBelongToTheCaller() throws IOException {
    store.apply(
        StoreBatch.builder().put(ColumnFamily.XATTRS, Keys.xattr(1, "k"), bytes("v")).build(), 1);
    byte[] value = store.get(ColumnFamily.XATTRS, Keys.xattr(1, "k"));
    value[0] = 'w';
    assertThat(store.get(ColumnFamily.XATTRS, Keys.xattr(1, "k"))).isEqualTo(bytes("v"));
  }

  @Test
  void aSnapshotSeesNothingAppliedAfterIt() throws IOException {
    store.apply(
        StoreBatch.builder().put(ColumnFamily.DENTRIES, Keys.dentry(1, "a"), bytes("1")).build(),
        1);
    StoreSnapshot snapshot = store.snapshot();
    try {
      store.apply(
          StoreBatch.builder()
              .put(ColumnFamily.DENTRIES, Keys.dentry(1, "a"), bytes("2"))
              .put(ColumnFamily.DENTRIES, Keys.dentry(1, "b"), bytes("2"))
              .build(),
          2);
      assertThat(snapshot.appliedIndex()).isEqualTo(1);
      assertThat(snapshot.get(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))).isEqualTo(bytes("1"));
      assertThat(snapshot.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 10).size())
          .isEqualTo(1);
      assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))).isEqualTo(bytes("2"));
      assertThat(store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 10).size())
          .isEqualTo(2);
    } finally {
      snapshot.close();
    }
    snapshot.close(); // idempotent
    assertUnavailable(() -> snapshot.get(ColumnFamily.DENTRIES, Keys.dentry(1, "a")));
    assertUnavailable(() -> snapshot.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 1));
    // The store's own reads go on.
    assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "b"))).isEqualTo(bytes("2"));
  }

  @Test
  void aClosedStoreRefusesEverythingAndClosesTwice() throws IOException {
    StoreSnapshot open = store.snapshot(); // closed by the store
    store.close();
    store.close();
    assertThat(store.isWritable()).isFalse();
    assertUnavailable(() -> store.get(ColumnFamily.INODES, Keys.inode(1)));
    assertUnavailable(() -> store.scan(ColumnFamily.INODES, new byte[0], null, 1));
    assertUnavailable(() -> store.apply(StoreBatch.empty(), 1));
    assertUnavailable(() -> store.snapshot());
    assertUnavailable(() -> open.get(ColumnFamily.INODES, Keys.inode(1)));
    open.close();
    assertThatThrownBy(() -> store.start()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aStoreThatIsNotStartedRefusesOperations() throws IOException {
    MetadataStore unstarted = newStore(dir.resolve("unstarted"));
    try {
      assertUnavailable(() -> unstarted.get(ColumnFamily.INODES, Keys.inode(1)));
      assertUnavailable(() -> unstarted.apply(StoreBatch.empty(), 1));
      assertThat(unstarted.isWritable()).isFalse();
    } finally {
      unstarted.close();
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  interface StoreCall {
    void run() throws IOException;
  }

  static void assertUnavailable(StoreCall call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));
  }

  static byte[] key(ColumnFamily family) {
    return switch (family) {
      case INODES -> Keys.inode(1);
      case DENTRIES -> Keys.dentry(1, "a");
      case XATTRS -> Keys.xattr(1, "user.a");
      case CHUNKS -> Keys.chunk(1, 0);
      case META -> Keys.meta("next-inode-id");
      case RETRY -> Keys.retry(new io.braidfs.common.token.ClientId(1, 2), 3);
      case DELETIONS -> Keys.deletion(1);
      case JOURNAL -> Keys.journal(1);
    };
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
