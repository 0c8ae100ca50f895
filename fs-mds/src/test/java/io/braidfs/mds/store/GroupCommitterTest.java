package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.testing.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@ExtendWith(NoNativeLeaks.class)
class GroupCommitterTest {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommitterTest.class);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private RocksMetadataStore rocks;
  private GatedStore store;
  private GroupCommitter committer;

  @BeforeEach
  void start() throws IOException {
    rocks = new RocksMetadataStore("mds-gc", RocksMetadataStoreTest.options(dir));
    store = new GatedStore(rocks);
    store.start();
  }

  @AfterEach
  void stop() {
    if (committer != null) {
      committer.close();
    }
    store.close();
    Await.noBraidThreads(Duration.ofSeconds(5));
  }

  private GroupCommitter startCommitter(int capacity, Duration timeout) throws IOException {
    committer = new GroupCommitter("mds-gc", store, capacity, timeout);
    committer.start();
    return committer;
  }

  @Test
  void sixteenThreadsShareFewSyncsAndEveryWriteSurvivesAReopen() throws Exception {
    int threads = 16;
    int perThread = 625; // 10,000 batches
    startCommitter(4096, WAIT);
    ConcurrentLinkedQueue<CompletableFuture<Long>> futures = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> submitters = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread submitter =
          new Thread(
              () -> {
                awaitUninterruptibly(go);
                for (int i = 0; i < perThread; i++) {
                  long ino = 1_000_000L * (thread + 1) + i;
                  StoreBatch create =
                      StoreBatch.builder()
                          .put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino))
                          .put(
                              ColumnFamily.DENTRIES,
                              Keys.dentry(thread + 1, "f" + i),
                              Keys.u64(ino))
                          .build();
                  CompletableFuture<Long> f = committer.submit(create);
                  futures.add(f);
                  if (i % 4 == 3) {
                    f.join(); // like a handler waiting for its reply, with a few in flight
                  }
                }
              },
              "submitter-" + t);
      submitters.add(submitter);
      submitter.start();
    }
    long started = System.nanoTime();
    go.countDown();
    for (Thread s : submitters) {
      s.join(WAIT.toMillis());
      assertThat(s.isAlive()).isFalse();
    }
    Set<Long> indexes = new HashSet<>();
    for (CompletableFuture<Long> f : futures) {
      indexes.add(f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
    long elapsedNanos = System.nanoTime() - started;
    int batches = threads * perThread;
    long groups = committer.groupsWritten();
    long syncs = rocks.walSyncCount();
    LOG.info(
        "{} batches in {} groups ({} WAL syncs, largest group {}) in {} ms: {} groups/s, {}"
            + " batches/s",
        batches,
        groups,
        syncs,
        committer.largestGroup(),
        TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
        groups * 1_000_000_000L / elapsedNanos,
        batches * 1_000_000_000L / elapsedNanos);

    assertThat(indexes).hasSize(batches).allMatch(i -> i >= 1 && i <= batches);
    assertThat(committer.batchesWritten()).isEqualTo(batches);
    // How much grouping happens here depends on scheduling; the deterministic grouping check is
    // in the gated tests. This only shows the writer never syncs more than once per group.
    assertThat(groups).isPositive().isLessThanOrEqualTo(batches);
    assertThat(syncs).isPositive().isLessThanOrEqualTo(groups + 2);
    assertThat(rocks.appliedIndex()).isEqualTo(batches);

    committer.close();
    store.close();
    store = new GatedStore(new RocksMetadataStore("mds-gc", RocksMetadataStoreTest.options(dir)));
    store.start();
    assertThat(store.appliedIndex()).isEqualTo(batches);
    assertThat(store.scan(ColumnFamily.INODES, new byte[0], null, batches + 1).size())
        .isEqualTo(batches);
    for (int t = 0; t < threads; t++) {
      ScanPage listing = store.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(t + 1), null, 1000);
      assertThat(listing.size()).isEqualTo(perThread);
      for (ScanPage.Entry e : listing.entries()) {
        long ino = Keys.readU64(e.value(), 0);
        assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino))).isEqualTo(Keys.u64(ino));
      }
    }
  }

  @Test
  void indexesFollowSubmissionOrderAndContinueAfterARestart() throws IOException {
    startCommitter(16, WAIT);
    assertThat(committer.submit(put(1)).join()).isEqualTo(1);
    assertThat(committer.submit(put(2)).join()).isEqualTo(2);
    committer.close();
    store.apply(put(3), 10); // another writer while no committer runs
    startCommitter(16, WAIT);
    assertThat(committer.submit(put(4)).join()).isEqualTo(11);
    assertThat(store.appliedIndex()).isEqualTo(11);
  }

  @Test
  void aGroupKeepsSubmissionOrderSoTheLastWriteWins() throws IOException {
    startCommitter(16, WAIT);
    store.hold(0);
    CompletableFuture<Long> first = committer.submit(put(1));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    List<CompletableFuture<Long>> group = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      group.add(
          committer.submit(
              StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(7), Keys.u64(i)).build()));
    }
    store.openGate();
    assertThat(first.join()).isEqualTo(1);
    assertThat(group).extracting(CompletableFuture::join).containsExactly(2L, 3L, 4L, 5L, 6L);
    assertThat(committer.groupsWritten()).isEqualTo(2);
    assertThat(committer.largestGroup()).isEqualTo(5);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(7))).isEqualTo(Keys.u64(4));
  }

  @Test
  void aFullQueueBlocksThenFailsBusy() throws IOException {
    startCommitter(2, Duration.ofMillis(50));
    store.hold(0);
    CompletableFuture<Long> first = committer.submit(put(1));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    CompletableFuture<Long> second = committer.submit(put(2));
    CompletableFuture<Long> third = committer.submit(put(3));
    CompletableFuture<Long> refused = committer.submit(put(4)); // blocks for the 50 ms
    assertFailsWith(refused, Status.BUSY);
    store.openGate();
    assertThat(List.of(first.join(), second.join(), third.join())).containsExactly(1L, 2L, 3L);
    assertThat(store.get(ColumnFamily.INODES, Keys.inode(4))).isNull();
  }

  @Test
  void aFailedWriteFailsItsWholeGroupAndEverythingAfter() throws IOException {
    startCommitter(16, WAIT);
    store.hold(1); // the first write passes, the second waits
    CompletableFuture<Long> first = committer.submit(put(1));
    assertThat(first.join()).isEqualTo(1);
    CompletableFuture<Long> blocker = committer.submit(put(2));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    List<CompletableFuture<Long>> group =
        List.of(committer.submit(put(3)), committer.submit(put(4)), committer.submit(put(5)));
    rocks.failNextWrite(new RocksDBException("injected I/O error"));
    store.release(1); // the blocker's write fails
    assertFailsWith(blocker, Status.UNAVAILABLE);
    for (CompletableFuture<Long> f : group) {
      assertFailsWith(f, Status.UNAVAILABLE);
    }
    assertFailsWith(committer.submit(put(6)), Status.UNAVAILABLE);
    assertThat(rocks.isWritable()).isFalse();
    assertThat(store.appliedIndex()).isEqualTo(1);
    for (int i = 2; i <= 6; i++) {
      assertThat(store.get(ColumnFamily.INODES, Keys.inode(i))).isNull();
    }
    Await.noBraidThreads(Duration.ofSeconds(5)); // the writer stopped by itself
  }

  @Test
  void aGroupFailsAsOneWhenTheStoreFails() throws IOException {
    startCommitter(16, WAIT);
    store.hold(0);
    CompletableFuture<Long> blocker = committer.submit(put(1));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    store.release(1);
    assertThat(blocker.join()).isEqualTo(1);
    // The writer is free; queue a group behind a new hold, then fail that group's write.
    store.hold(0);
    CompletableFuture<Long> second = committer.submit(put(2));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    List<CompletableFuture<Long>> group =
        List.of(committer.submit(put(3)), committer.submit(put(4)), committer.submit(put(5)));
    store.release(1);
    assertThat(second.join()).isEqualTo(2);
    Await.until("the group to be drained", WAIT, store::writerWaiting);
    rocks.failNextWrite(new RocksDBException("injected I/O error"));
    store.release(1);
    for (CompletableFuture<Long> f : group) {
      assertFailsWith(f, Status.UNAVAILABLE);
    }
    assertThat(committer.groupsWritten()).isEqualTo(2);
    assertThat(store.appliedIndex()).isEqualTo(2);
  }

  @Test
  void closeCommitsWhatWasQueuedThenRefuses() throws Exception {
    startCommitter(16, WAIT);
    store.hold(0);
    List<CompletableFuture<Long>> queued = new ArrayList<>();
    queued.add(committer.submit(put(1)));
    Await.until("the writer to wait at the gate", WAIT, store::writerWaiting);
    queued.add(committer.submit(put(2)));
    queued.add(committer.submit(put(3)));
    Thread closer = new Thread(committer::close, "closer");
    closer.start();
    Await.until("close to begin", WAIT, () -> committer.toString().contains("CLOSING"));
    assertFailsWith(committer.submit(put(4)), Status.UNAVAILABLE);
    store.openGate();
    closer.join(WAIT.toMillis());
    assertThat(queued).extracting(CompletableFuture::join).containsExactly(1L, 2L, 3L);
    assertThat(committer.toString()).contains("CLOSED");
    assertFailsWith(committer.submit(put(5)), Status.UNAVAILABLE);
    Await.noBraidThreads(Duration.ofSeconds(5));
  }

  @Test
  void refusesBeforeStartAndCannotStartOnAClosedStore() throws IOException {
    committer = new GroupCommitter("mds-gc", store, 16, WAIT);
    assertFailsWith(committer.submit(put(1)), Status.UNAVAILABLE);
    committer.close();
    store.close();
    committer = new GroupCommitter("mds-gc", store, RocksMetadataStoreTest.options(dir));
    assertThatThrownBy(committer::start).isInstanceOf(StoreException.class);
    assertThat(Await.braidThreads()).isEmpty();
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static StoreBatch put(long ino) {
    return StoreBatch.builder().put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino)).build();
  }

  private static void assertFailsWith(CompletableFuture<Long> f, Status status) {
    assertThatThrownBy(f::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            StoreException.class, e -> assertThat(e.status()).isEqualTo(status));
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
