package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.DataSize;
import io.braidfs.common.error.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status.Code;
import org.rocksdb.Status.SubCode;

/** The store contract on RocksDB, plus what only a real database can show. */
class RocksMetadataStoreTest extends AbstractMetadataStoreTest {
  static StoreOptions options(Path dir) {
    return new StoreOptions(dir, true, DataSize.ofMiB(8));
  }

  @Override
  protected MetadataStore newStore(Path dir) {
    return new RocksMetadataStore("mds-test", options(dir));
  }

  private RocksMetadataStore rocks() {
    return (RocksMetadataStore) store;
  }

  @Test
  void reopeningKeepsTheDataAndTheAppliedIndex() throws IOException {
    store.apply(
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(1), bytes("root"))
            .put(ColumnFamily.DENTRIES, Keys.dentry(1, "home"), Keys.u64(2))
            .put(ColumnFamily.DELETIONS, Keys.deletion(1), bytes("chunk 9"))
            .build(),
        41);
    store.apply(
        StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(2), bytes("home")).build(), 42);
    store.close();

    store = newStore(dir);
    store.start();
    assertThat(store.appliedIndex()).isEqualTo(42);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(bytes("root"));
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(2))).isEqualTo(bytes("home"));
    assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "home"))).isEqualTo(Keys.u64(2));
    assertThat(store.get(ColumnFamily.DELETIONS, Keys.deletion(1))).isEqualTo(bytes("chunk 9"));
    assertThatThrownBy(() -> store.apply(StoreBatch.empty(), 42))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFailedWriteLeavesNothingAndStopsFurtherWrites() throws IOException {
    List<StoreException> reported = new ArrayList<>();
    store.close();
    store = new RocksMetadataStore("mds-test", options(dir), reported::add);
    store.start();
    store.apply(
        StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(1), bytes("a")).build(), 1);

    rocks()
        .failNextWrite(
            new RocksDBException(
                "injected", new org.rocksdb.Status(Code.IOError, SubCode.None, "disk")));
    StoreBatch create =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(2), bytes("b"))
            .put(ColumnFamily.DENTRIES, Keys.dentry(1, "b"), Keys.u64(2))
            .delete(ColumnFamily.INODES, Keys.inode(1))
            .build();
    assertThatThrownBy(() -> store.applyAll(List.of(create, create), 2))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE))
        .hasMessageContaining("journal indexes 2..3")
        .hasRootCauseMessage("injected");
    assertThat(reported).hasSize(1);
    assertThat(store.isWritable()).isFalse();
    assertThat(store.appliedIndex()).isEqualTo(1);
    // Nothing of the batch is visible, and reads still work.
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(bytes("a"));
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(2))).isNull();
    assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "b"))).isNull();
    // Every later write is refused, even a valid one, without telling the listener again.
    assertUnavailable(() -> store.apply(create, 4));
    assertThat(reported).hasSize(1);
    store.close();

    store = newStore(dir);
    store.start();
    assertThat(store.appliedIndex()).isEqualTo(1);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(2))).isNull();
    assertThat(store.isWritable()).isTrue();
  }

  @Test
  void aCheckpointOpensAsAStoreAtTheSameIndex() throws IOException {
    StoreBatch.Builder b = StoreBatch.builder();
    for (int i = 0; i < 1000; i++) {
      b.put(ColumnFamily.DENTRIES, Keys.dentry(1, "n" + i), Keys.u64(i));
    }
    store.apply(b.build(), 7);
    Path copy = dir.resolve("checkpoint");
    assertThat(store.checkpoint(copy)).isEqualTo(7);
    store.apply(
        StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(9), bytes("later")).build(), 8);
    assertThatThrownBy(() -> store.checkpoint(copy)).hasMessageContaining("already exists");

    MetadataStore standby = new RocksMetadataStore("standby", options(copy));
    standby.start();
    try {
      assertThat(standby.appliedIndex()).isEqualTo(7);
      assertThat(standby.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 5000).size())
          .isEqualTo(1000);
      assertThat(standby.get(ColumnFamily.INODES, Keys.inode(9))).isNull();
    } finally {
      standby.close();
    }
  }

  @Test
  void aSecondStoreOnTheSameDirectoryFailsToStartAndLeaksNothing() {
    MetadataStore second = newStore(dir);
    assertThatThrownBy(second::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is in use by another server");
    assertThat(second.isWritable()).isFalse();
    second.close();
  }

  @Test
  void startCreatesMissingDirectories() throws IOException {
    Path nested = dir.resolve("a/b/c");
    MetadataStore other = newStore(nested);
    other.start();
    other.close();
    assertThat(Files.isDirectory(nested)).isTrue();
  }

  @Test
  void closeReleasesEveryNative() throws IOException {
    int beforeOpen = ManagedNatives.openCount();
    store.close();
    int withoutStore = ManagedNatives.openCount();
    openStore();
    assertThat(ManagedNatives.openCount() - withoutStore)
        .as("natives of the open store")
        .isGreaterThan(10);
    store.snapshot(); // left open on purpose: the store releases it
    store.close();
    // Relative to what was open without the store, so natives of other tests do not count.
    assertThat(ManagedNatives.openCount()).isEqualTo(withoutStore);
    assertThat(beforeOpen).isGreaterThan(withoutStore);
  }

  @Test
  void theOptionsFileShowsTheTuningEachFamilyWasOpenedWith() throws IOException {
    // RocksDB writes the options it opened with to OPTIONS-<number>, an INI file, in the store
    // directory; the newest is the one in use.
    Path file;
    try (Stream<Path> files = Files.list(dir)) {
      file =
          files
              .filter(p -> p.getFileName().toString().matches("OPTIONS-\\d+"))
              .max(
                  Comparator.comparingLong(
                      p -> Long.parseLong(p.getFileName().toString().substring(8))))
              .orElseThrow();
    }
    Map<String, Map<String, String>> sections = new HashMap<>();
    Map<String, String> section = null;
    for (String line : Files.readAllLines(file)) {
      String t = line.strip();
      if (t.startsWith("#")) {
        continue;
      }
      if (t.startsWith("[")) {
        section = sections.computeIfAbsent(t, k -> new HashMap<>());
      } else if (section != null && t.contains("=")) {
        section.put(t.substring(0, t.indexOf('=')).strip(), t.substring(t.indexOf('=') + 1));
      }
    }
    assertThat(sections.get("[DBOptions]"))
        .containsEntry("recycle_log_file_num", "4")
        .containsEntry("atomic_flush", "true");
    for (ColumnFamily family : ColumnFamily.values()) {
      String name = family.cfName();
      Map<String, String> cf = sections.get("[CFOptions \"" + name + "\"]");
      Map<String, String> table = sections.get("[TableOptions/BlockBasedTable \"" + name + "\"]");
      assertThat(cf).as(name).containsKeys("memtable_prefix_bloom_size_ratio", "write_buffer_size");
      assertThat(table).as(name).containsKey("filter_policy");
      double memtableBloom = Double.parseDouble(cf.get("memtable_prefix_bloom_size_ratio"));
      long buffer = Long.parseLong(cf.get("write_buffer_size"));
      if (family == ColumnFamily.JOURNAL) {
        // Only scanned: no Bloom filter in its memtables nor its files.
        assertThat(memtableBloom).as("journal memtable Bloom").isZero();
        assertThat(table.get("filter_policy")).as("journal file filter").isEqualTo("nullptr");
        assertThat(buffer).isEqualTo(64L << 20);
        continue;
      }
      assertThat(memtableBloom).as(name).isEqualTo(0.05);
      assertThat(cf).as(name).containsEntry("memtable_whole_key_filtering", "true");
      assertThat(table.get("filter_policy")).as(name + " file filter").isNotEqualTo("nullptr");
      assertThat(buffer).as(name).isEqualTo(family == ColumnFamily.RETRY ? 32L << 20 : 8L << 20);
    }
  }

  @Test
  void syncedWritesSyncTheWal() throws IOException {
    long before = rocks().walSyncCount();
    store.apply(StoreBatch.empty(), 1);
    assertThat(rocks().walSyncCount()).isGreaterThan(before);
    assertThat(rocks().writeCount()).isEqualTo(1);
  }

  @Test
  void anUnsyncedWriteIsVisibleAtOnceAndSyncWalMakesItDurable() throws IOException {
    long walSyncs = rocks().walSyncCount();
    store.applyAll(
        List.of(StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(1), bytes("a")).build()),
        1,
        false);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(bytes("a"));
    assertThat(store.appliedIndex()).isEqualTo(1);
    assertThat(rocks().walSyncCount()).isEqualTo(walSyncs);

    store.syncWal();
    assertThat(rocks().walSyncCount()).isGreaterThan(walSyncs);
    assertThat(rocks().syncWalCount()).isEqualTo(1);
    // An explicit sync=true syncs even where the store is configured not to.
    store.close();
    store = new RocksMetadataStore("mds-test", options(dir).withSync(false));
    store.start();
    long before = rocks().walSyncCount();
    store.applyAll(List.of(StoreBatch.empty()), 2, true);
    assertThat(rocks().walSyncCount()).isGreaterThan(before);
    before = rocks().walSyncCount();
    store.apply(StoreBatch.empty(), 3);
    assertThat(rocks().walSyncCount()).isEqualTo(before);
  }

  @Test
  void aFailedSyncStopsFurtherWritesAndSyncs() throws IOException {
    List<StoreException> reported = new ArrayList<>();
    store.close();
    store = new RocksMetadataStore("mds-test", options(dir), reported::add);
    store.start();
    store.applyAll(List.of(StoreBatch.empty()), 1, false);
    StoreFaults.failNextSync(rocks(), "injected");
    assertThatThrownBy(store::syncWal)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE))
        .hasMessageContaining("WAL sync failed")
        .hasRootCauseMessage("injected");
    assertThat(reported).hasSize(1);
    assertThat(store.isWritable()).isFalse();
    assertUnavailable(() -> store.apply(StoreBatch.empty(), 2));
    assertUnavailable(store::syncWal);
    assertThat(reported).hasSize(1);
    assertThat(store.get(ColumnFamily.META, Keys.meta("x"))).isNull(); // reads still work
  }

  @Test
  void opensADatabaseWrittenBeforeTheJournalFamilyExisted() throws Exception {
    store.close();
    Path old = dir.resolve("old");
    Files.createDirectories(old);
    // A database with the default family and every family but the journal, as an older release
    // left it.
    List<ColumnFamily> older =
        List.of(ColumnFamily.values()).stream().filter(f -> f != ColumnFamily.JOURNAL).toList();
    try (ManagedNative<DBOptions> dbOptions = ManagedNatives.dbOptions();
        ManagedNative<ColumnFamilyOptions> cfOptions = ManagedNatives.columnFamilyOptions()) {
      dbOptions.get().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions.get()));
      for (ColumnFamily f : older) {
        descriptors.add(new ColumnFamilyDescriptor(f.nameBytes(), cfOptions.get()));
      }
      List<ManagedNative<ColumnFamilyHandle>> handles = new ArrayList<>();
      ManagedNative<RocksDB> db = ManagedNatives.open(dbOptions.get(), old, descriptors, handles);
      try {
        db.get().put(handles.get(1).get(), Keys.inode(1), bytes("root"));
      } finally {
        handles.forEach(ManagedNative::close); // before the database
        db.close();
      }
    }
    store = newStore(old);
    store.start();
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(bytes("root"));
    store.apply(
        StoreBatch.builder().put(ColumnFamily.JOURNAL, Keys.journal(1), bytes("entry")).build(), 1);
    assertThat(store.get(ColumnFamily.JOURNAL, Keys.journal(1))).isEqualTo(bytes("entry"));
  }
}
