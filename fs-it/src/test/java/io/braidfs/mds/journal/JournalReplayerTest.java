package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.token.ClientId;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.NoNativeLeaks;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreOptions;
import io.braidfs.testing.Await;
import io.braidfs.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replaying a journal into another store gives a byte-identical store: every column family, the
 * journal family included, and the applied index (ARCHITECTURE section 4).
 */
@ExtendWith(NoNativeLeaks.class)
class JournalReplayerTest {
  private static final int RECORDS = 600;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock();
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    Await.noBraidThreads(Duration.ofSeconds(5));
  }

  /** A started store in {@code name} under the test directory and a started journal over it. */
  private WalJournal openJournal(String name, BraidConfig config) throws IOException {
    return openJournal(openStore(dir.resolve(name)), config);
  }

  private RocksMetadataStore openStore(Path at) throws IOException {
    RocksMetadataStore store = new RocksMetadataStore(at.getFileName().toString(), options(at));
    opened.add(store);
    store.start();
    return store;
  }

  private WalJournal openJournal(RocksMetadataStore store, BraidConfig config) throws IOException {
    WalJournal journal = new WalJournal(store.id(), store, config, clock);
    opened.add(journal);
    journal.start();
    return journal;
  }

  private static StoreOptions options(Path at) {
    return WalJournalTest.options(at);
  }

  /**
   * Appends {@code count} varied mutations from {@code seed}: puts in every namespace family,
   * overwrites, deletes, empty values and empty batches, each at a later time.
   */
  private void appendVaried(WalJournal journal, long seed, int count) throws IOException {
    Random random = new Random(seed);
    ColumnFamily[] families = {
      ColumnFamily.INODES,
      ColumnFamily.DENTRIES,
      ColumnFamily.XATTRS,
      ColumnFamily.CHUNKS,
      ColumnFamily.META,
      ColumnFamily.RETRY,
      ColumnFamily.DELETIONS
    };
    for (int i = 0; i < count; i++) {
      StoreBatch.Builder b = StoreBatch.builder();
      int ops = random.nextInt(5); // sometimes 0: an empty batch
      for (int op = 0; op < ops; op++) {
        ColumnFamily family = families[random.nextInt(families.length)];
        byte[] key = key(family, random.nextInt(40));
        if (random.nextInt(4) == 0) {
          b.delete(family, key);
        } else {
          byte[] value = new byte[random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(64)];
          random.nextBytes(value);
          b.put(family, key, value);
        }
      }
      clock.advance(Duration.ofNanos(1 + random.nextInt(2_000_000)));
      journal.append("op " + i, b.build());
    }
    journal.barrier().join();
  }

  private static byte[] key(ColumnFamily family, int n) {
    return switch (family) {
      case INODES -> Keys.inode(n);
      case DENTRIES -> Keys.dentry(n % 5, "name-" + n);
      case XATTRS -> Keys.xattr(n % 5, "user.x" + n);
      case CHUNKS -> Keys.chunk(n % 5, n);
      case META -> Keys.meta("counter-" + n);
      case RETRY -> Keys.retry(new ClientId(n % 3, 7), n);
      case DELETIONS -> Keys.deletion(n);
      case JOURNAL -> throw new IllegalArgumentException("not a mutation's family");
    };
  }

  private static void assertIdentical(
      WalJournal a, WalJournal b, RocksMetadataStore sa, RocksMetadataStore sb) throws IOException {
    assertThat(sb.appliedIndex()).isEqualTo(sa.appliedIndex());
    assertThat(b.lastIndex()).isEqualTo(a.lastIndex());
    assertThat(WalJournalTest.contents(sb)).isEqualTo(WalJournalTest.contents(sa));
  }

  @Test
  void replayingIntoFreshStoresGivesIdenticalStoresEveryTime() throws IOException {
    BraidConfig config = WalJournalTest.config(true, 1_000_000);
    RocksMetadataStore sourceStore = openStore(dir.resolve("source"));
    WalJournal source = openJournal(sourceStore, config);
    appendVaried(source, 42, RECORDS);

    RocksMetadataStore firstStore = openStore(dir.resolve("first"));
    WalJournal first = openJournal(firstStore, config);
    assertThat(JournalReplayer.replay(source, first)).isEqualTo(RECORDS);
    assertIdentical(source, first, sourceStore, firstStore);
    assertThat(WalJournalTest.contents(firstStore).get(ColumnFamily.JOURNAL)).hasSize(RECORDS);

    RocksMetadataStore secondStore = openStore(dir.resolve("second"));
    WalJournal second = openJournal(secondStore, config);
    assertThat(JournalReplayer.replay(first, second)).isEqualTo(RECORDS);
    assertIdentical(source, second, sourceStore, secondStore);

    // Up to date: nothing more to replay; new records follow on.
    assertThat(JournalReplayer.replay(source, first)).isZero();
    appendVaried(source, 43, 10);
    assertThat(JournalReplayer.replay(source, first)).isEqualTo(10);
    assertIdentical(source, first, sourceStore, firstStore);
    assertThat(first.read(1, RECORDS + 10)).isEqualTo(source.read(1, RECORDS + 10));
  }

  @Test
  void aCheckpointPlusTheJournalTailCatchesUpDespiteTrimming() throws IOException {
    BraidConfig config = WalJournalTest.config(true, 50);
    RocksMetadataStore sourceStore = openStore(dir.resolve("source"));
    WalJournal source = openJournal(sourceStore, config);
    appendVaried(source, 7, 100);
    Path copy = dir.resolve("standby");
    assertThat(sourceStore.checkpoint(copy)).isEqualTo(100);
    appendVaried(source, 8, 40); // fewer than retained: the source still holds 101..140

    // The trimmed journal cannot rebuild a fresh store...
    WalJournal fresh = openJournal("fresh", config);
    assertThatThrownBy(() -> JournalReplayer.replay(source, fresh))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("journal record 1 was trimmed");

    // ...but brings the checkpoint up to date, trimming as the source did.
    RocksMetadataStore standbyStore = openStore(copy);
    WalJournal standby = openJournal(standbyStore, config);
    assertThat(standby.lastIndex()).isEqualTo(100);
    assertThat(JournalReplayer.replay(source, standby)).isEqualTo(40);
    assertIdentical(source, standby, sourceStore, standbyStore);
    assertThat(WalJournalTest.contents(standbyStore).get(ColumnFamily.JOURNAL)).hasSize(50);
  }

  @Test
  void replayRefusesARecordOutOfOrder() throws IOException {
    WalJournal target = openJournal("target", WalJournalTest.config(true, 1_000_000));
    assertThatThrownBy(() -> target.replay(new JournalRecord(2, "skip", 0, StoreBatch.empty())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot replay record 2 after index 0");
    assertThat(target.replay(new JournalRecord(1, "first", 5, StoreBatch.empty())).join())
        .isEqualTo(1);
    assertThat(target.read(1, 1))
        .containsExactly(new JournalRecord(1, "first", 5, StoreBatch.empty()));
  }
}
