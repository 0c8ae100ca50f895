package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.MetadataStore;
import io.braidfs.mds.store.StoreBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Journal} promises (its javadoc), run against each implementation: the
 * single-MDS {@link WalJournal} and the HA {@code LedgerJournal}. A subclass opens a fresh, started
 * journal over a fresh store.
 */
public abstract class JournalContract {
  /** A started journal, the store it applies records to, and what closes them all. */
  public record Opened(Journal journal, MetadataStore store, AutoCloseable closer) {}

  private Opened opened;

  /** A fresh store and a started journal over it; closed by {@link #closeJournal}. */
  protected abstract Opened open() throws Exception;

  @AfterEach
  void closeJournal() throws Exception {
    if (opened != null) {
      opened.closer().close();
    }
  }

  private Opened journal() throws Exception {
    if (opened == null) {
      opened = open();
    }
    return opened;
  }

  static StoreBatch create(long ino) {
    return StoreBatch.builder()
        .put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino))
        .put(ColumnFamily.DENTRIES, Keys.dentry(1, "f" + ino), Keys.u64(ino))
        .build();
  }

  @Test
  void appendsGetConsecutiveIndexesAndCompleteInOrderOnceInTheStore() throws Exception {
    Journal j = journal().journal();
    MetadataStore store = journal().store();
    long first = j.lastIndex() + 1;
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      futures.add(j.append("create f" + i, create(1000 + i)));
      assertThat(j.lastIndex()).isEqualTo(first + i);
      // The appending thread sees its own record at once, durable or not.
      assertThat(j.view().get(ColumnFamily.INODES, Keys.inode(1000 + i))).isNotNull();
    }
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < futures.size(); i++) {
      long index = futures.get(i).get(30, TimeUnit.SECONDS);
      assertThat(index).isEqualTo(first + i);
      order.add(index);
      // Acknowledged means applied: the store itself has it, not only the view.
      assertThat(store.get(ColumnFamily.INODES, Keys.inode(1000 + i))).isNotNull();
    }
    assertThat(order).isSorted();
  }

  @Test
  void recordsReadBackAsAppended() throws Exception {
    Journal j = journal().journal();
    long first = j.lastIndex() + 1;
    for (int i = 0; i < 10; i++) {
      j.append("create f" + i, create(i + 10));
    }
    j.barrier().get(30, TimeUnit.SECONDS);
    List<JournalRecord> records = j.read(first, 100);
    assertThat(records).hasSize(10);
    for (int i = 0; i < 10; i++) {
      JournalRecord r = records.get(i);
      assertThat(r.index()).isEqualTo(first + i);
      assertThat(r.operation()).isEqualTo("create f" + i);
      assertThat(r.batch().writes(ColumnFamily.INODES)).isTrue();
    }
    assertThat(j.read(j.lastIndex() + 1, 10)).isEmpty();
  }

  @Test
  void aBarrierCompletesOnceEverythingBeforeItIsDurable() throws Exception {
    Journal j = journal().journal();
    CompletableFuture<Long> last = null;
    for (int i = 0; i < 50; i++) {
      last = j.append("create", create(i + 100));
    }
    j.barrier().get(30, TimeUnit.SECONDS);
    assertThat(last).isDone();
    assertThat(journal().store().get(ColumnFamily.INODES, Keys.inode(149))).isNotNull();
  }

  @Test
  void aBatchMayNotWriteTheJournalFamily() throws Exception {
    Journal j = journal().journal();
    long before = j.lastIndex();
    assertThatThrownBy(
            () ->
                j.append(
                    "bad",
                    StoreBatch.builder()
                        .put(ColumnFamily.JOURNAL, Keys.journal(1), new byte[] {1})
                        .build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(j.lastIndex()).isEqualTo(before);
  }

  @Test
  void aClosedJournalRefusesAppends() throws Exception {
    Journal j = journal().journal();
    j.append("create", create(7)).get(30, TimeUnit.SECONDS);
    j.close();
    assertThatThrownBy(() -> j.append("create", create(8))).isInstanceOf(IOException.class);
  }
}
