package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The store contract through the cache, and what the cache adds: reads answered from memory, writes
 * that keep it current, a read racing a write never leaving the older value behind, the bound.
 */
class CachedMetadataStoreTest extends AbstractMetadataStoreTest {
  @Override
  protected MetadataStore newStore(Path dir) {
    return new CachedMetadataStore(
        new RocksMetadataStore("mds-test", RocksMetadataStoreTest.options(dir)), 1024);
  }

  private CachedMetadataStore cache() {
    return (CachedMetadataStore) store;
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static StoreBatch put(ColumnFamily family, String key, String value) {
    return StoreBatch.builder().put(family, b(key), b(value)).build();
  }

  @Test
  void aSecondReadIsAnsweredFromMemoryWithACopy() throws IOException {
    store.apply(put(ColumnFamily.INODES, "k", "v1"), 1);
    assertThatThrownBy(() -> cache().cacheOnly().get(ColumnFamily.INODES, b("k")))
        .isInstanceOf(CachedMetadataStore.CacheMiss.class);

    byte[] first = store.get(ColumnFamily.INODES, b("k"));
    first[0] = 'X'; // the caller owns its copy
    assertThat(cache().misses()).isEqualTo(1);
    assertThat(store.get(ColumnFamily.INODES, b("k"))).isEqualTo(b("v1"));
    assertThat(cache().cacheOnly().get(ColumnFamily.INODES, b("k"))).isEqualTo(b("v1"));
    assertThat(cache().hits()).isEqualTo(2);
    assertThat(cache().misses()).isEqualTo(1);
  }

  @Test
  void writesUpdateAndDeletesRemoveWhatIsCached() throws IOException {
    store.apply(put(ColumnFamily.DENTRIES, "d", "a"), 1);
    store.get(ColumnFamily.DENTRIES, b("d"));
    store.apply(put(ColumnFamily.DENTRIES, "d", "b"), 2);
    assertThat(cache().cacheOnly().get(ColumnFamily.DENTRIES, b("d"))).isEqualTo(b("b"));
    assertThat(store.get(ColumnFamily.DENTRIES, b("d"))).isEqualTo(b("b"));

    store.apply(StoreBatch.builder().delete(ColumnFamily.DENTRIES, b("d")).build(), 3);
    assertThat(store.get(ColumnFamily.DENTRIES, b("d"))).isNull();
    assertThatThrownBy(() -> cache().cacheOnly().get(ColumnFamily.DENTRIES, b("d")))
        .isInstanceOf(CachedMetadataStore.CacheMiss.class);
  }

  @Test
  void aRefusedWriteLeavesNothingCachedForItsKeys() throws IOException {
    store.apply(put(ColumnFamily.INODES, "k", "v1"), 5);
    store.get(ColumnFamily.INODES, b("k"));
    // An index that does not increase is refused before anything is written.
    assertThatThrownBy(() -> store.apply(put(ColumnFamily.INODES, "k", "v2"), 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.get(ColumnFamily.INODES, b("k"))).isEqualTo(b("v1"));
  }

  @Test
  void otherFamiliesAreNotCached() throws IOException {
    store.apply(put(ColumnFamily.CHUNKS, "c", "v"), 1);
    assertThat(store.get(ColumnFamily.CHUNKS, b("c"))).isEqualTo(b("v"));
    assertThat(store.get(ColumnFamily.CHUNKS, b("c"))).isEqualTo(b("v"));
    assertThat(cache().size()).isZero();
    assertThatThrownBy(() -> cache().cacheOnly().get(ColumnFamily.CHUNKS, b("c")))
        .isInstanceOf(CachedMetadataStore.CacheMiss.class);
  }

  @Test
  void theNumberOfEntriesStaysBounded() throws IOException {
    StoreBatch.Builder batch = StoreBatch.builder();
    for (int i = 0; i < 3000; i++) {
      batch.put(ColumnFamily.INODES, b("k" + i), b("v" + i));
    }
    store.apply(batch.build(), 1);
    for (int i = 0; i < 3000; i++) {
      assertThat(store.get(ColumnFamily.INODES, b("k" + i))).isEqualTo(b("v" + i));
    }
    assertThat(cache().size()).isLessThanOrEqualTo(1024);
  }

  /** A read that read the store before a write, and fills the cache after it, must not stick. */
  @Test
  void aReadRacingAWriteDoesNotLeaveTheOlderValueCached() throws Exception {
    try (PausingStore rocks = new PausingStore(dir.resolve("racing"))) {
      CachedMetadataStore racing = new CachedMetadataStore(rocks, 1024);
      racing.start();
      racing.apply(put(ColumnFamily.INODES, "k", "old"), 1);
      rocks.pauseNextGet();
      CompletableFuture<byte[]> reader =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return racing.get(ColumnFamily.INODES, b("k"));
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(rocks.paused.await(10, TimeUnit.SECONDS)).isTrue();
      // The reader holds "old", read from RocksDB; now the write lands before it fills the cache.
      racing.apply(put(ColumnFamily.INODES, "k", "new"), 2);
      rocks.resume.countDown();
      assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(b("old"));

      assertThat(racing.get(ColumnFamily.INODES, b("k"))).isEqualTo(b("new"));
      assertThat(racing.cacheOnly().get(ColumnFamily.INODES, b("k"))).isEqualTo(b("new"));
      racing.close();
    }
  }

  /**
   * A RocksDB store whose next get, once asked, pauses after reading until the test resumes it.
   *
   * <p>Thread-safety: thread-safe.
   */
  private static final class PausingStore implements MetadataStore {
    private final RocksMetadataStore rocks;
    final CountDownLatch paused = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);
    private volatile boolean pauseNext;

    PausingStore(Path dir) {
      rocks = new RocksMetadataStore("mds-race", RocksMetadataStoreTest.options(dir));
    }

    void pauseNextGet() {
      pauseNext = true;
    }

    @Override
    public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
      byte[] v = rocks.get(family, key);
      if (pauseNext) {
        pauseNext = false;
        paused.countDown();
        try {
          resume.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return v;
    }

    @Override
    public ScanPage scan(
        ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
        throws IOException {
      return rocks.scan(family, prefix, startAfter, limit);
    }

    @Override
    public long appliedIndex() {
      return rocks.appliedIndex();
    }

    @Override
    public void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException {
      rocks.applyAll(batches, firstIndex);
    }

    @Override
    public void applyAll(List<StoreBatch> batches, long firstIndex, boolean sync)
        throws IOException {
      rocks.applyAll(batches, firstIndex, sync);
    }

    @Override
    public void syncWal() throws IOException {
      rocks.syncWal();
    }

    @Override
    public StoreSnapshot snapshot() throws IOException {
      return rocks.snapshot();
    }

    @Override
    public long checkpoint(Path target) throws IOException {
      return rocks.checkpoint(target);
    }

    @Override
    public boolean isWritable() {
      return rocks.isWritable();
    }

    @Override
    public void start() throws IOException {
      rocks.start();
    }

    @Override
    public void close() {
      rocks.close();
    }
  }
}
