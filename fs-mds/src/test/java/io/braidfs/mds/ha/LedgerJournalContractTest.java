package io.braidfs.mds.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.mds.journal.JournalContract;
import io.braidfs.mds.journal.JournalContractAccess;
import io.braidfs.mds.journal.WalJournal;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreException;
import io.braidfs.mds.store.StoreOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.apache.bookkeeper.client.api.WriteHandle;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal contract for the HA journal, on a real ZooKeeper and three real bookies (started once
 * for the class: they take seconds), plus what only it does: a record is in the ledger before it is
 * acknowledged, and a successor's recovery-open fences the writer, whose records not yet
 * acknowledged then fail (outcome unknown) and whose failure listener hears it.
 */
class LedgerJournalContractTest extends JournalContract {
  @TempDir static Path shared;
  @TempDir Path dir;
  private static TestingServer zk;
  private static HaCoordinator coordinator;
  private static final List<EmbeddedBookie> bookies = new ArrayList<>();
  private static Ledgers ledgers;
  private final List<IOException> failures = new CopyOnWriteArrayList<>();
  private WriteHandle ledger;

  /**
   * Records per ledger of the journals {@link #open} makes: small, so the whole contract runs
   * across ledger rolls.
   */
  private long perLedger = 3;

  private volatile boolean failRolls;

  /** The first record of each ledger the journal rolled to, in order. */
  private final List<Long> rolls = new CopyOnWriteArrayList<>();

  private final List<WriteHandle> rolledTo = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    zk =
        new TestingServer(
            new InstanceSpec(shared.resolve("zk").toFile(), -1, -1, -1, true, -1, 500, -1), true);
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of("braid.mds.ha.zk", zk.getConnectString(), "braid.mds.ha.zk-root", "/c"));
    coordinator = new HaCoordinator("mds-c", config, "127.0.0.1:1");
    coordinator.start();
    for (int i = 0; i < 3; i++) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      EmbeddedBookie b =
          new EmbeddedBookie(
              "bookie-" + i,
              coordinator.metadataServiceUri(),
              new InetSocketAddress("127.0.0.1", port),
              shared.resolve("bookie-" + i),
              Duration.ofSeconds(2));
      b.start();
      bookies.add(b);
    }
    ledgers = new Ledgers("mds-c", coordinator.metadataServiceUri(), 3, 2, Duration.ofSeconds(2));
    ledgers.start();
  }

  @AfterAll
  static void stopCluster() throws IOException {
    ledgers.close();
    for (EmbeddedBookie b : bookies) {
      b.close();
    }
    coordinator.close();
    zk.close();
  }

  @Override
  protected Opened open() throws Exception {
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.mds.store.sync", "false"));
    RocksMetadataStore store =
        new RocksMetadataStore("mds-c", StoreOptions.from(config).withDir(dir));
    store.start();
    WalJournal local = new WalJournal("mds-c", store, config, Clock.system());
    local.start();
    ledger = ledgers.create(1, Duration.ofSeconds(5), Duration.ofSeconds(30));
    LedgerJournal j =
        new LedgerJournal(
            "mds-c",
            local,
            ledger,
            local.lastIndex() + 1,
            perLedger,
            first -> {
              if (failRolls) {
                throw new IOException("lost the latch while publishing");
              }
              WriteHandle h = ledgers.create(1, Duration.ofSeconds(5), Duration.ofSeconds(30));
              rolls.add(first);
              rolledTo.add(h);
              return h;
            },
            Clock.system(),
            failures::add);
    return new Opened(
        j,
        store,
        () -> {
          j.close();
          local.close();
          store.close();
        });
  }

  @Test
  void aFullLedgerIsClosedWithItsRecordsAndTheJournalGoesOnInTheNext() throws Exception {
    perLedger = 10;
    Opened o = open();
    try {
      LedgerJournal j = (LedgerJournal) o.journal();
      long first = j.lastIndex() + 1;
      WriteHandle initial = ledger;
      List<CompletableFuture<Long>> acks = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        acks.add(j.append("create", create(i + 1)));
      }
      for (CompletableFuture<Long> a : acks) {
        a.get(30, TimeUnit.SECONDS);
      }
      assertThat(rolls).containsExactly(first + 10, first + 20);
      assertThat(j.ledgerId()).isEqualTo(rolledTo.get(1).getId());
      // Every ledger but the last is closed, holding exactly its ten records, in order (records
      // appended while an entry was out share the next one).
      List<Long> ids = List.of(initial.getId(), rolledTo.get(0).getId());
      for (int l = 0; l < ids.size(); l++) {
        ReadHandle h = ledgers.open(ids.get(l), false);
        assertThat(h.isClosed()).isTrue();
        assertThat(h.getLastAddConfirmed()).isBetween(0L, 9L);
        assertThat(ledgers.read(h, 0, h.getLastAddConfirmed()))
            .extracting(r -> r.index())
            .containsExactlyElementsOf(
                java.util.stream.LongStream.range(first + 10L * l, first + 10L * (l + 1))
                    .boxed()
                    .toList());
        h.close();
      }
      assertThat(failures).isEmpty();
    } finally {
      o.closer().close();
    }
  }

  @Test
  void recordsAppendedWhileEntriesAreOutShareTheNextEntry() throws Exception {
    perLedger = Long.MAX_VALUE;
    Opened o = open();
    try {
      LedgerJournal j = (LedgerJournal) o.journal();
      long first = j.lastIndex() + 1;
      List<CompletableFuture<Long>> acks = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        acks.add(j.append("create", create(i + 1)));
      }
      for (CompletableFuture<Long> a : acks) {
        a.get(30, TimeUnit.SECONDS);
      }
      ReadHandle h = ledgers.open(j.ledgerId(), true);
      // Appending 50 records takes microseconds, an entry's round trip to the bookies far more:
      // records wait and go together, in fewer entries than records.
      assertThat(h.getLastAddConfirmed()).isLessThan(49);
      assertThat(ledgers.read(h, 0, h.getLastAddConfirmed()))
          .extracting(r -> r.index())
          .containsExactlyElementsOf(
              java.util.stream.LongStream.range(first, first + 50).boxed().toList());
      h.close();
    } finally {
      o.closer().close();
    }
  }

  @Test
  void aRollThatFailsEndsTheJournalLikeARefusedAppend() throws Exception {
    perLedger = 2;
    Opened o = open();
    try {
      LedgerJournal j = (LedgerJournal) o.journal();
      j.append("create", create(1)).get(30, TimeUnit.SECONDS);
      j.append("create", create(2)).get(30, TimeUnit.SECONDS);
      failRolls = true; // the next ledger cannot be published (another replica leads)
      long full = j.ledgerId();
      assertThatThrownBy(() -> j.append("create", create(3)))
          .isInstanceOfSatisfying(
              StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.NOT_LEADER))
          .hasMessageContaining("next ledger");
      assertThat(failures).hasSize(1);
      assertThat(rolls).isEmpty();
      assertThat(o.store().get(ColumnFamily.INODES, Keys.inode(3))).isNull();
      assertThatThrownBy(() -> j.append("create", create(4))).isInstanceOf(StoreException.class);
      // The full ledger was closed first, with its two records.
      ReadHandle h = ledgers.open(full, false);
      assertThat(h.isClosed()).isTrue();
      assertThat(h.getLastAddConfirmed()).isEqualTo(1);
      h.close();
    } finally {
      o.closer().close();
    }
  }

  @Test
  void everyAcknowledgedRecordIsInTheLedgerAndASuccessorFencesTheWriter() throws Exception {
    perLedger = Long.MAX_VALUE;
    Opened o = open();
    try {
      LedgerJournal j = (LedgerJournal) o.journal();
      for (int i = 0; i < 20; i++) {
        j.append("create", create(i + 1)).get(30, TimeUnit.SECONDS);
      }
      // A successor recovers the ledger: it holds every acknowledged record, and fences the writer.
      ReadHandle recovered = ledgers.open(j.ledgerId(), true);
      assertThat(recovered.getLastAddConfirmed()).isEqualTo(19);
      assertThat(ledgers.read(recovered, 0, 19))
          .extracting(r -> r.index())
          .containsExactlyElementsOf(
              java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList());
      recovered.close();
      CompletableFuture<Long> after = j.append("create", create(99));
      assertThatThrownBy(() -> after.get(30, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              StoreException.class, e -> assertThat(e.status()).isEqualTo(Status.NOT_LEADER));
      assertThat(failures).hasSize(1);
      // Never applied locally: the store is a prefix of the journal.
      assertThat(o.store().get(ColumnFamily.INODES, Keys.inode(99))).isNull();
      assertThatThrownBy(() -> j.append("create", create(100))).isInstanceOf(StoreException.class);
    } finally {
      o.closer().close();
    }
  }

  static StoreBatch create(long ino) {
    return JournalContractAccess.create(ino);
  }
}
