package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.error.Status;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.GatedStore;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.MetadataStore;
import io.braidfs.mds.store.NoNativeLeaks;
import io.braidfs.mds.store.PendingWrites;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreException;
import io.braidfs.mds.store.StoreFaults;
import io.braidfs.mds.store.StoreOptions;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.JournalEntry;
import io.braidfs.mds.store.proto.JournalOp;
import io.braidfs.testing.Await;
import io.braidfs.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WalJournal} on a real RocksDB: visibility before durability, shared syncs, failures,
 * trimming, reopening. Replay is in {@link JournalReplayerTest}.
 */
@ExtendWith(NoNativeLeaks.class)
class WalJournalTest {
  private static final Logger LOG = LoggerFactory.getLogger(WalJournalTest.class);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private final List<StoreException> storeFailures = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> opened = new ArrayList<>();
  private RocksMetadataStore rocks;
  private GatedStore store;
  private WalJournal journal;

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    Await.noBraidThreads(Duration.ofSeconds(5));
  }

  // ---- fixtures ---------------------------------------------------------------------------------

  static BraidConfig config(boolean sync, long retained) {
    return BraidConfig.fromMap(
        Map.of(
            "braid.mds.store.sync",
            Boolean.toString(sync),
            "braid.mds.journal.retained-records",
            Long.toString(retained)));
  }

  /** Opens the store in {@code dir} (gated) and a journal over it, both started. */
  private WalJournal open(BraidConfig config) throws IOException {
    StoreOptions options = StoreOptions.from(config).withDir(dir);
    rocks = new RocksMetadataStore("mds-j", options, storeFailures::add);
    store = new GatedStore(rocks);
    store.start();
    opened.add(store);
    journal = new WalJournal("mds-j", store, config, clock);
    opened.add(journal);
    journal.start();
    return journal;
  }

  private WalJournal open() throws IOException {
    return open(config(true, 1_000_000));
  }

  /** Closes the journal and the store, as the MDS does at shutdown. */
  private void closeBoth() {
    journal.close();
    store.close();
  }

  static StoreBatch create(long ino) {
    return StoreBatch.builder()
        .put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino))
        .put(ColumnFamily.DENTRIES, Keys.dentry(1, "f" + ino), Keys.u64(ino))
        .build();
  }

  private byte[] inode(long ino) throws IOException {
    return store.get(ColumnFamily.INODES, Keys.inode(ino));
  }

  static void assertFailsWith(CompletableFuture<Long> f, Status status) {
    assertThatThrownBy(() -> f.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(status));
  }

  static void assertRefused(ThrowingCall call) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));
  }

  @FunctionalInterface
  interface ThrowingCall {
    void run() throws Exception;
  }

  // ---- appending --------------------------------------------------------------------------------

  @Test
  void anAppendIsVisibleAtOnceAndAcknowledgedOnlyWhenSynced() throws IOException {
    open();
    store.hold(0);
    long syncsBefore = rocks.walSyncCount();
    CompletableFuture<Long> f = journal.append("create f1", create(1));

    // Visible to the next mutation at once, through the journal's view.
    assertThat(journal.view().get(ColumnFamily.INODES, Keys.inode(1))).isEqualTo(Keys.u64(1));
    assertThat(journal.lastIndex()).isEqualTo(1);
    assertThat(journal.view().appliedIndex()).isEqualTo(1);
    // Written, so visible to readers of the store, before it is durable.
    Await.until("the sync thread to wait at the gate", WAIT, store::syncWaiting);
    assertThat(inode(1)).isEqualTo(Keys.u64(1));
    assertThat(store.appliedIndex()).isEqualTo(1);
    assertThat(f).isNotDone();
    assertThat(journal.durableIndex()).isZero();

    store.openGate();
    assertThat(f.join()).isEqualTo(1);
    assertThat(journal.durableIndex()).isEqualTo(1);
    assertThat(rocks.walSyncCount()).isGreaterThan(syncsBefore);
  }

  @Test
  void theViewSeesRecordsNotYetWrittenAndRecordsQueuedMeanwhileShareOneWrite() throws Exception {
    open();
    store.holdWrites(0);
    CompletableFuture<Long> f1 = journal.append("create f1", create(1));
    Await.until("the write thread to wait at the gate", WAIT, store::writeWaiting);
    // Record 2 replaces f1's entry and removes its inode; record 3 adds f3.
    StoreBatch move =
        StoreBatch.builder()
            .delete(ColumnFamily.INODES, Keys.inode(1))
            .put(ColumnFamily.DENTRIES, Keys.dentry(1, "f1"), Keys.u64(2))
            .build();
    CompletableFuture<Long> f2 = journal.append("replace f1", move);
    List<CompletableFuture<Long>> later = new ArrayList<>();
    for (long i = 3; i <= 100; i++) {
      later.add(journal.append("create f" + i, create(i)));
    }

    StoreView view = journal.view();
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(1))).isNull();
    assertThat(view.get(ColumnFamily.DENTRIES, Keys.dentry(1, "f1"))).isEqualTo(Keys.u64(2));
    assertThat(view.get(ColumnFamily.INODES, Keys.inode(100))).isEqualTo(Keys.u64(100));
    assertThat(view.scan(ColumnFamily.INODES, new byte[0], null, 1000).size()).isEqualTo(98);
    assertThat(view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(1), null, 1000).size())
        .isEqualTo(99);
    // Nothing is in the store yet, and nothing is acknowledged.
    assertThat(inode(1)).isNull();
    assertThat(store.appliedIndex()).isZero();
    assertThat(f1).isNotDone();
    assertThat(journal.writeCount()).isZero();

    store.openWriteGate();
    assertThat(f2.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    for (CompletableFuture<Long> f : later) {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    // Record 1 alone (taken before the others came), then 2..100 in one write.
    assertThat(journal.writeCount()).isEqualTo(2);
    assertThat(inode(1)).isNull();
    assertThat(store.get(ColumnFamily.DENTRIES, Keys.dentry(1, "f1"))).isEqualTo(Keys.u64(2));
    assertThat(store.scan(ColumnFamily.INODES, new byte[0], null, 1000).size()).isEqualTo(98);
    assertThat(store.appliedIndex()).isEqualTo(100);
    assertThat(journal.read(1, 1000)).extracting(JournalRecord::index).hasSize(100);
    // Written records leave the view: it holds nothing once everything is in the store.
    assertThat(((PendingWrites) journal.view()).size()).isZero();
  }

  @Test
  void anAppendWaitsWhileTooManyRecordsAreNotYetWritten() throws Exception {
    open();
    store.holdWrites(0);
    journal.append("create f1", create(1));
    Await.until("the write thread to wait at the gate", WAIT, store::writeWaiting);
    int total = 1 + WalJournal.MAX_UNWRITTEN + 1;
    List<CompletableFuture<Long>> futures = new CopyOnWriteArrayList<>();
    Thread appender =
        new Thread(
            () -> {
              try {
                for (long i = 2; i <= total; i++) {
                  futures.add(journal.append("create f" + i, create(i)));
                }
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            "appender");
    appender.start();
    // Record 1 is at the gate; MAX_UNWRITTEN more are queued; the last one waits for room.
    Await.until(
        "the appender to wait for room",
        WAIT,
        () -> journal.lastIndex() == total - 1 && appender.getState() == Thread.State.WAITING);
    assertThat(futures).hasSize(WalJournal.MAX_UNWRITTEN);

    store.openWriteGate();
    appender.join(WAIT.toMillis());
    assertThat(appender.isAlive()).isFalse();
    assertThat(journal.barrier().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(total);
    assertThat(futures)
        .hasSize(total - 1)
        .allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
    assertThat(store.appliedIndex()).isEqualTo(total);
  }

  @Test
  void appendsInFlightShareOneSyncAndCompleteInOrder() throws IOException {
    open();
    store.hold(0);
    ConcurrentLinkedQueue<Long> outOfOrder = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    futures.add(journal.append("create f1", create(1)));
    Await.until("the sync thread to wait at the gate", WAIT, store::syncWaiting);
    long walSyncsBefore = rocks.walSyncCount();
    SyncStats statsBefore = journal.syncStats();
    int appends = 500;
    for (long i = 2; i <= appends; i++) {
      futures.add(journal.append("create f" + i, create(i)));
    }
    // In order means: when record i is acknowledged, every earlier one already is. (The order in
    // which callbacks run is not it: a thread waiting in join() may run some of them itself.)
    for (CompletableFuture<Long> f : futures) {
      f.thenAccept(
          v -> {
            if (v > 1 && !futures.get((int) (v - 2)).isDone()) {
              outOfOrder.add(v);
            }
          });
    }
    assertThat(futures).noneMatch(CompletableFuture::isDone);
    Await.until(
        "the write thread to write every record", WAIT, () -> store.appliedIndex() == appends);
    assertThat(inode(appends)).isNotNull();

    store.openGate();
    for (int i = 0; i < appends; i++) {
      assertThat(futures.get(i).join()).isEqualTo(i + 1);
    }
    // The held sync covers record 1; the next covers the 499 written meanwhile.
    SyncStats stats = journal.syncStats().minus(statsBefore);
    assertThat(stats.syncs()).isEqualTo(2);
    assertThat(stats.records()).isEqualTo(appends);
    assertThat(stats.nanos()).isPositive();
    long walSyncs = rocks.walSyncCount() - walSyncsBefore;
    assertThat(walSyncs).isPositive().isLessThan(appends);
    assertThat(outOfOrder).as("records acknowledged before an earlier one").isEmpty();
  }

  @Test
  void manyAppendsInFlightFromOneThreadShareSyncs() throws Exception {
    open();
    // One namespace thread, 16 callers each waiting for its acknowledgement before the next call.
    int callers = 16;
    int appends = 20_000;
    Semaphore window = new Semaphore(callers);
    List<CompletableFuture<Long>> futures = new ArrayList<>(appends);
    long walSyncsBefore = rocks.walSyncCount();
    long started = System.nanoTime();
    for (long i = 1; i <= appends; i++) {
      window.acquire();
      CompletableFuture<Long> f = journal.append("create f" + i, create(i));
      f.whenComplete((index, failure) -> window.release());
      futures.add(f);
    }
    journal.barrier().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long elapsedNanos = System.nanoTime() - started;
    long walSyncs = rocks.walSyncCount() - walSyncsBefore;
    LOG.info(
        "{} appends, {} in flight, in {} ms: {} appends/s, {} WAL syncs ({} appends per sync)",
        appends,
        callers,
        TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
        appends * 1_000_000_000L / elapsedNanos,
        walSyncs,
        walSyncs == 0 ? "-" : String.format("%.1f", (double) appends / walSyncs));
    for (int i = 0; i < appends; i++) {
      assertThat(futures.get(i).join()).isEqualTo(i + 1);
    }
    // Not a timing assertion: the journal never syncs more often than it appends.
    assertThat(walSyncs).isPositive().isLessThanOrEqualTo(appends);
    assertThat(journal.syncStats().syncs()).isLessThanOrEqualTo(appends);
  }

  @Test
  void aBarrierWaitsForWhatWasAppendedBeforeIt() throws Exception {
    open();
    assertThat(journal.barrier().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    store.hold(0);
    CompletableFuture<Long> f = journal.append("create f1", create(1));
    journal.append("create f2", create(2));
    CompletableFuture<Long> barrier = journal.barrier();
    CompletableFuture<Long> f3 = journal.append("create f3", create(3));
    Await.until("the sync thread to wait at the gate", WAIT, store::syncWaiting);
    assertThat(barrier).isNotDone();
    store.openGate();
    assertThat(barrier.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(f).isDone();
    assertThat(f3.join()).isEqualTo(3);
    assertThat(journal.barrier()).isCompletedWithValue(3L);
  }

  @Test
  void withoutSyncEveryAppendCompletesOnceWritten() throws Exception {
    open(config(false, 1_000_000));
    long syncsBefore = rocks.walSyncCount();
    for (long i = 1; i <= 100; i++) {
      assertThat(journal.append("create f" + i, create(i)).get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(i);
      assertThat(store.appliedIndex()).isEqualTo(i);
    }
    assertThat(journal.barrier()).isCompletedWithValue(100L);
    assertThat(journal.durableIndex()).isEqualTo(100);
    assertThat(rocks.walSyncCount()).isEqualTo(syncsBefore);
    assertThat(journal.syncStats()).isEqualTo(SyncStats.NONE);
    assertThat(Await.braidThreads()).noneMatch(t -> t.contains("journal-sync"));

    closeBoth();
    open(config(false, 1_000_000));
    assertThat(journal.lastIndex()).isEqualTo(100);
    assertThat(inode(100)).isNotNull();
  }

  @Test
  void readReturnsTheRecordsAsAppended() throws IOException {
    open();
    StoreBatch rename =
        StoreBatch.builder()
            .delete(ColumnFamily.DENTRIES, Keys.dentry(1, "a"))
            .put(ColumnFamily.DENTRIES, Keys.dentry(1, "b"), Keys.u64(2))
            .put(ColumnFamily.XATTRS, Keys.xattr(2, "user.empty"), new byte[0])
            .build();
    journal.append("create a", create(2));
    clock.advance(Duration.ofMillis(5));
    journal.append("rename a b", rename);
    journal.append("noop", StoreBatch.empty());

    List<JournalRecord> records = journal.read(1, 10);
    long t0 = clock.currentTimeMillis() * 1_000_000L - 5_000_000L;
    assertThat(records)
        .containsExactly(
            new JournalRecord(1, "create a", t0, create(2)),
            new JournalRecord(2, "rename a b", t0 + 5_000_000L, rename),
            new JournalRecord(3, "noop", t0 + 5_000_000L, StoreBatch.empty()));
    assertThat(journal.read(2, 1)).extracting(JournalRecord::index).containsExactly(2L);
    assertThat(journal.read(4, 10)).isEmpty();
    assertThatThrownBy(() -> journal.read(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> journal.read(1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aBatchMayNotWriteTheJournalFamily() throws IOException {
    open();
    StoreBatch forged =
        StoreBatch.builder().put(ColumnFamily.JOURNAL, Keys.journal(1), new byte[] {1}).build();
    assertThatThrownBy(() -> journal.append("forged", forged))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal family");
    assertThat(journal.lastIndex()).isZero();
    assertThat(journal.append("create f1", create(1)).join()).isEqualTo(1);
  }

  // ---- failures ---------------------------------------------------------------------------------

  @Test
  void aFailedWriteFailsItsAppendEverythingPendingAndEveryLaterAppend() throws IOException {
    open();
    assertThat(journal.append("create f1", create(1)).join()).isEqualTo(1);
    store.hold(0);
    CompletableFuture<Long> pending = journal.append("create f2", create(2));
    Await.until("the sync thread to wait at the gate", WAIT, store::syncWaiting);

    StoreFaults.failNextWrite(rocks, "injected write error");
    CompletableFuture<Long> failed = journal.append("create f3", create(3));
    assertFailsWith(failed, Status.UNAVAILABLE);
    // Written but not yet acknowledged: its outcome is unknown now, so it fails too.
    assertFailsWith(pending, Status.UNAVAILABLE);
    assertRefused(() -> journal.append("create f4", create(4)));
    assertThat(storeFailures).hasSize(1);
    assertThat(inode(3)).isNull();
    assertThat(store.appliedIndex()).isEqualTo(2);
    assertThat(journal.lastIndex()).isEqualTo(3); // appended, never written
    Await.until(
        "the write thread to end",
        WAIT,
        () -> Await.braidThreads().stream().noneMatch(t -> t.contains("journal-write")));
    assertFailsWith(journal.barrier(), Status.UNAVAILABLE);

    store.openGate(); // the held sync is refused by the failed store; the thread ends
    Await.until(
        "the sync thread to end",
        WAIT,
        () -> Await.braidThreads().stream().noneMatch(t -> t.contains("journal-sync")));
    assertThat(journal.durableIndex()).isEqualTo(1);
  }

  @Test
  void aFailedSyncFailsWhatItCoveredAndEveryLaterAppend() throws IOException {
    open();
    assertThat(journal.append("create f1", create(1)).join()).isEqualTo(1);
    StoreFaults.failNextSync(rocks, "injected sync error");
    CompletableFuture<Long> f = journal.append("create f2", create(2));
    assertFailsWith(f, Status.UNAVAILABLE);
    assertThat(rocks.isWritable()).isFalse();
    assertThat(storeFailures).hasSize(1);
    assertThat(storeFailures.get(0)).hasMessageContaining("WAL sync failed");
    assertRefused(() -> journal.append("create f3", create(3)));
    assertThat(inode(2)).isNotNull(); // written, visible, never acknowledged
    assertThat(journal.durableIndex()).isEqualTo(1);
  }

  @Test
  void refusesBeforeStartAfterCloseAndOverAFailedStore() throws IOException {
    StoreOptions options = StoreOptions.from(config(true, 10)).withDir(dir);
    rocks = new RocksMetadataStore("mds-j", options);
    opened.add(rocks);
    WalJournal notStarted = new WalJournal("mds-j", rocks, config(true, 10), clock);
    opened.add(notStarted);
    assertRefused(() -> notStarted.start()); // the store is not started
    assertThat(Await.braidThreads()).isEmpty();
    assertRefused(() -> notStarted.append("create f1", create(1)));

    rocks.start();
    WalJournal j = new WalJournal("mds-j", rocks, config(true, 10), clock);
    opened.add(j);
    assertRefused(() -> j.append("create f1", create(1)));
    j.start();
    assertThat(j.append("create f1", create(1)).join()).isEqualTo(1);
    j.close();
    assertRefused(() -> j.append("create f2", create(2)));
    assertThatThrownBy(() -> new WalJournal("", rocks, config(true, 10), clock))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- close and reopen
  // ---------------------------------------------------------------------------

  @Test
  void closeSyncsWhatWasAppendedAndAReopenedJournalContinues() throws IOException {
    open();
    store.hold(0);
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    for (long i = 1; i <= 10; i++) {
      futures.add(journal.append("create f" + i, create(i)));
    }
    Await.until("the sync thread to wait at the gate", WAIT, store::syncWaiting);
    Thread opener = new Thread(store::openGate, "opener");
    opener.start(); // close waits for the held sync and the one after it
    journal.close();
    for (int i = 0; i < 10; i++) {
      assertThat(futures.get(i)).isCompletedWithValue(i + 1L);
    }
    assertThat(Await.braidThreads()).noneMatch(t -> t.contains("journal-sync"));
    assertRefused(() -> journal.append("create f11", create(11)));
    store.close();

    open();
    assertThat(journal.lastIndex()).isEqualTo(10);
    assertThat(journal.durableIndex()).isEqualTo(10);
    assertThat(journal.append("create f11", create(11)).join()).isEqualTo(11);
    assertThat(journal.read(1, 100)).extracting(JournalRecord::index).hasSize(11).endsWith(11L);
  }

  // ---- trimming ---------------------------------------------------------------------------------

  @Test
  void trimmingKeepsExactlyTheRetainedRecords() throws IOException {
    open(config(true, 5));
    for (long i = 1; i <= 12; i++) {
      journal.append("create f" + i, create(i));
    }
    journal.barrier().join();
    ScanPage kept = store.scan(ColumnFamily.JOURNAL, new byte[0], null, 100);
    assertThat(kept.entries())
        .extracting(e -> Keys.journalIndex(e.key()))
        .containsExactly(8L, 9L, 10L, 11L, 12L);
    assertThat(journal.read(8, 100)).extracting(JournalRecord::index).hasSize(5);
    assertThatThrownBy(() -> journal.read(7, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("journal record 7 was trimmed")
        .hasMessageContaining("retained-records=5")
        .hasMessageContaining("keeps records 8..12");
    assertThatThrownBy(() -> journal.read(1, 100)).hasMessageContaining("record 1 was trimmed");
    assertThat(journal.read(13, 1)).isEmpty();
    // Only the journal is trimmed: every mutation's own writes stay.
    assertThat(store.scan(ColumnFamily.INODES, new byte[0], null, 100).size()).isEqualTo(12);
  }

  // ---- corruption -------------------------------------------------------------------------------

  @Test
  void aCorruptRecordIsAnInternalErrorNamingItsKey() throws IOException {
    open();
    journal.append("create f1", create(1)).join();
    closeBoth();
    // Damage records behind the journal's back, as a disk or a bug might.
    StoreOptions options = StoreOptions.from(config(true, 100)).withDir(dir);
    try (RocksMetadataStore raw = new RocksMetadataStore("raw", options)) {
      raw.start();
      byte[] unknownFamily =
          JournalEntry.newBuilder()
              .setOperation("from the future")
              .addOps(JournalOp.newBuilder().setFamily(99).setKey(ByteString.EMPTY))
              .build()
              .toByteArray();
      raw.apply(
          StoreBatch.builder()
              .put(ColumnFamily.JOURNAL, Keys.journal(2), new byte[] {0x08, (byte) 0xFF})
              .put(ColumnFamily.JOURNAL, Keys.journal(3), unknownFamily)
              .build(),
          3);
    }
    open();
    assertThat(journal.read(1, 1)).hasSize(1);
    assertThatThrownBy(() -> journal.read(1, 2))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.INTERNAL))
        .hasMessageContaining("corrupt metadata")
        .hasMessageContaining("journal key 0000000000000002 (journal record 2)")
        .hasMessageContaining("JournalEntry");
    assertThatThrownBy(() -> journal.read(3, 1))
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.INTERNAL))
        .hasMessageContaining("journal record 3")
        .hasMessageContaining("unknown column family id 99");
  }

  // ---- helpers for other tests ------------------------------------------------------------------

  /** Every entry of every family of {@code store}, keyed by family, as comparable hex strings. */
  static Map<ColumnFamily, List<String>> contents(MetadataStore store) throws IOException {
    Map<ColumnFamily, List<String>> out = new EnumMap<>(ColumnFamily.class);
    HexFormat hex = HexFormat.of();
    for (ColumnFamily family : ColumnFamily.values()) {
      List<String> entries = new ArrayList<>();
      for (ScanPage.Entry e : store.scan(family, new byte[0], null, Integer.MAX_VALUE).entries()) {
        entries.add(hex.formatHex(e.key()) + "=" + hex.formatHex(e.value()));
      }
      out.put(family, entries);
    }
    return out;
  }

  static StoreOptions options(Path dir) {
    return new StoreOptions(dir, true, DataSize.ofMiB(8));
  }
}
