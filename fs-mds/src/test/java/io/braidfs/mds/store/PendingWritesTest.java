package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pending writes over a real RocksDB store, against a sorted map of what they should show. */
@ExtendWith(NoNativeLeaks.class)
class PendingWritesTest {
  @TempDir Path dir;

  private RocksMetadataStore store;
  private long lastIndex;
  private PendingWrites view;

  @BeforeEach
  void open() throws IOException {
    store = new RocksMetadataStore("mds-pending", RocksMetadataStoreTest.options(dir));
    store.start();
    view = new PendingWrites(store, () -> lastIndex);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Writes {@code batch} to the store as the next index. */
  private void write(StoreBatch batch) throws IOException {
    store.apply(batch, store.appliedIndex() + 1);
  }

  @Test
  void getSeesPendingPutsAndDeletesOverTheStoreAndReturnsCopies() throws IOException {
    write(
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(1), bytes("one"))
            .put(ColumnFamily.INODES, Keys.inode(2), bytes("two"))
            .build());
    PendingWrites.Added a =
        view.add(
            StoreBatch.builder()
                .delete(ColumnFamily.INODES, Keys.inode(1))
                .put(ColumnFamily.INODES, Keys.inode(3), bytes("three"))
                .build());
    lastIndex = 2;

    assertThat(view.get(ColumnFamily.INODES, Keys.inode(1))).isNull();
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(2))).isEqualTo(bytes("two"));
    byte[] three = view.get(ColumnFamily.INODES, Keys.inode(3));
    assertThat(three).isEqualTo(bytes("three"));
    three[0] = 'X';
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(3))).isEqualTo(bytes("three"));
    // Another family is untouched by these writes.
    assertThat(view.get(ColumnFamily.DENTRIES, Keys.inode(3))).isNull();
    assertThat(view.appliedIndex()).isEqualTo(2);
    assertThat(view.size()).isEqualTo(2);

    view.written(a); // without writing them to the store: the store's state shows again
    assertThat(view.size()).isZero();
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(bytes("one"));
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(3))).isNull();
  }

  @Test
  void aLaterBatchsWriteOfAKeyOutlivesTheEarlierBatchBeingWritten() throws IOException {
    StoreBatch first = StoreBatch.builder().put(ColumnFamily.META, bytes("k"), bytes("1")).build();
    StoreBatch second = StoreBatch.builder().delete(ColumnFamily.META, bytes("k")).build();
    PendingWrites.Added a = view.add(first);
    PendingWrites.Added b = view.add(second);
    write(first);
    view.written(a);
    assertThat(view.get(ColumnFamily.META, bytes("k"))).isNull(); // second's delete still pending
    write(second);
    view.written(b);
    assertThat(view.size()).isZero();
    assertThat(view.get(ColumnFamily.META, bytes("k"))).isNull();
  }

  @Test
  void aScanReadsOnWherePendingDeletesHideWholeStorePages() throws IOException {
    StoreBatch.Builder names = StoreBatch.builder();
    StoreBatch.Builder gone = StoreBatch.builder();
    for (int i = 0; i < 50; i++) {
      names.put(ColumnFamily.DENTRIES, Keys.dentry(7, "n" + (100 + i)), Keys.u64(i));
      if (i < 45) {
        gone.delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n" + (100 + i)));
      }
    }
    write(names.build());
    view.add(gone.build());

    ScanPage page = view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(7), null, 4);
    // The first eleven store pages of four are hidden; the twelfth shows n145..n147.
    assertThat(names(page)).containsExactly("n145", "n146", "n147");
    assertThat(page.hasMore()).isTrue();
    ScanPage rest = view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(7), page.cursor(), 4);
    assertThat(names(rest)).containsExactly("n148", "n149");
    assertThat(rest.hasMore()).isFalse();
    // A directory whose every entry is deleted is empty, as rmdir asks with a limit of 1.
    view.add(
        StoreBatch.builder()
            .delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n145"))
            .delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n146"))
            .delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n147"))
            .delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n148"))
            .delete(ColumnFamily.DENTRIES, Keys.dentry(7, "n149"))
            .build());
    ScanPage empty = view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(7), null, 1);
    assertThat(empty.entries()).isEmpty();
    assertThat(empty.hasMore()).isFalse();
  }

  @Test
  void aScanChecksItsArgumentsAsTheStoreDoes() {
    assertThatThrownBy(() -> view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), Keys.dentry(2, "a"), 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Random batches of puts and deletes over three directories, some written to the store (in order,
   * as the journal's writer does) and some still pending; every get and every paged scan must show
   * exactly the model's state.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void randomBatchesAgreeWithAModelOnEveryGetAndEveryPagedScan(long seed) throws IOException {
    Random random = new Random(seed);
    TreeMap<String, byte[]> model = new TreeMap<>(); // key "<dir>/<name>" -> value
    ArrayDeque<StoreBatch> unwritten = new ArrayDeque<>();
    ArrayDeque<PendingWrites.Added> added = new ArrayDeque<>();
    for (int step = 0; step < 300; step++) {
      StoreBatch.Builder b = StoreBatch.builder();
      int ops = 1 + random.nextInt(12);
      for (int i = 0; i < ops; i++) {
        long d = 1 + random.nextInt(3);
        // Names beyond ASCII too: their UTF-8 bytes (>= 0x80) must order as RocksDB orders them.
        String name = (random.nextBoolean() ? "e" : "\u00e9") + random.nextInt(20);
        String k = d + "/" + name;
        if (random.nextInt(3) == 0) {
          b.delete(ColumnFamily.DENTRIES, Keys.dentry(d, name));
          model.remove(k);
        } else {
          byte[] v = bytes(step + ":" + i);
          b.put(ColumnFamily.DENTRIES, Keys.dentry(d, name), v);
          model.put(k, v);
        }
      }
      StoreBatch batch = b.build();
      unwritten.addLast(batch);
      added.addLast(view.add(batch));
      lastIndex++;
      // The writer takes a group now and then.
      if (random.nextInt(4) == 0) {
        int group = 1 + random.nextInt(unwritten.size());
        List<StoreBatch> batches = new ArrayList<>();
        for (int i = 0; i < group; i++) {
          batches.add(unwritten.pollFirst());
        }
        store.applyAll(batches, store.appliedIndex() + 1);
        for (int i = 0; i < group; i++) {
          view.written(added.pollFirst());
        }
      }
      check(model, random);
    }
    while (!unwritten.isEmpty()) {
      write(unwritten.pollFirst());
      view.written(added.pollFirst());
    }
    assertThat(view.size()).isZero();
    check(model, random);
  }

  private void check(TreeMap<String, byte[]> model, Random random) throws IOException {
    for (long d = 1; d <= 3; d++) {
      for (int n = 0; n < 20; n += 3) {
        for (String name : List.of("e" + n, "\u00e9" + n)) {
          byte[] got = view.get(ColumnFamily.DENTRIES, Keys.dentry(d, name));
          assertThat(got).isEqualTo(model.get(d + "/" + name));
        }
      }
      List<String> expected = new ArrayList<>();
      for (Map.Entry<String, byte[]> e : model.subMap(d + "/", d + "0").entrySet()) {
        expected.add(e.getKey().substring(e.getKey().indexOf('/') + 1));
      }
      int limit = 1 + random.nextInt(6);
      List<String> listed = new ArrayList<>();
      byte[] cursor = null;
      while (true) {
        ScanPage page = view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(d), cursor, limit);
        assertThat(page.size()).isLessThanOrEqualTo(limit);
        for (ScanPage.Entry e : page.entries()) {
          String name = Keys.dentryName(e.key());
          listed.add(name);
          assertThat(e.value()).isEqualTo(model.get(d + "/" + name));
        }
        if (!page.hasMore()) {
          break;
        }
        assertThat(page.entries()).as("a page with more after it is never empty").isNotEmpty();
        cursor = page.cursor();
      }
      // UTF-8 byte order is code point order, the model's String order for these names.
      assertThat(listed).isEqualTo(expected);
    }
  }

  private static List<String> names(ScanPage page) {
    return page.entries().stream().map(e -> Keys.dentryName(e.key())).toList();
  }
}
