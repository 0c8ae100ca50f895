package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.DataSize;
import io.braidfs.common.token.ClientId;
import io.braidfs.mds.server.CallWatermarks.Check;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.PendingWrites;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watermarks over a real RocksDB store and the pending writes of the mutation thread's view: a
 * call is taken for new only when no retry-cache entry of its client can be at or above it.
 */
class CallWatermarksTest {
  private static final ClientId A = new ClientId(0xA1, 1);
  private static final ClientId B = new ClientId(0xB2, 2);

  @TempDir Path dir;
  private RocksMetadataStore store;
  private PendingWrites view;

  @BeforeEach
  void open() throws IOException {
    store =
        new RocksMetadataStore(
            "mds-watermarks", new StoreOptions(dir.resolve("store"), true, DataSize.ofMiB(8)));
    store.start();
    view = new PendingWrites(store, store::appliedIndex);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static byte[] answer(long callId) {
    return ("answer " + callId).getBytes(StandardCharsets.UTF_8);
  }

  /** Stores retry-cache entries for {@code calls} of {@code client}, as written records. */
  private void stored(ClientId client, long... calls) throws IOException {
    StoreBatch.Builder b = StoreBatch.builder();
    for (long c : calls) {
      b.put(ColumnFamily.RETRY, Keys.retry(client, c), answer(c));
    }
    store.apply(b.build(), store.appliedIndex() + 1);
  }

  @Test
  void aClientWithoutEntriesIsNewAboveItsLastCallAndLookedUpAtOrBelow() throws IOException {
    CallWatermarks marks = new CallWatermarks(view);
    assertThat(marks.check(A, 10)).isEqualTo(Check.NEW);
    assertThat(marks.check(A, 11)).isEqualTo(Check.NEW);
    assertThat(marks.check(A, 11)).isEqualTo(Check.LOOK_UP);
    assertThat(marks.check(A, 3)).isEqualTo(Check.LOOK_UP);
    assertThat(marks.check(A, 12)).isEqualTo(Check.NEW);
    // Another client's ids are its own.
    assertThat(marks.check(B, 5)).isEqualTo(Check.NEW);
    assertThat(marks.size()).isEqualTo(2);
  }

  @Test
  void storedEntriesAreFoundByTheProbeAndHoldBackTheWatermarkUntilACallIsAboveThemAll()
      throws IOException {
    stored(A, 5, 9);
    CallWatermarks marks = new CallWatermarks(view);

    assertThat(marks.check(A, 5)).isEqualTo(Check.FOUND);
    assertThat(marks.entry()).isEqualTo(answer(5));
    // 7 has no entry but 9 does: new, yet no watermark, so 9 is still found.
    assertThat(marks.check(A, 7)).isEqualTo(Check.NEW);
    assertThat(marks.entry()).isNull();
    assertThat(marks.size()).isZero();
    assertThat(marks.check(A, 9)).isEqualTo(Check.FOUND);
    assertThat(marks.entry()).isEqualTo(answer(9));
    assertThat(marks.check(A, 10)).isEqualTo(Check.NEW);
    assertThat(marks.size()).isEqualTo(1);
    assertThat(marks.check(A, 9)).isEqualTo(Check.LOOK_UP);
    assertThat(marks.check(A, 5)).isEqualTo(Check.LOOK_UP);
  }

  @Test
  void theProbeSeesEntriesNotYetWritten() throws IOException {
    view.add(StoreBatch.builder().put(ColumnFamily.RETRY, Keys.retry(A, 42), answer(42)).build());
    CallWatermarks marks = new CallWatermarks(view);
    assertThat(marks.check(A, 41)).isEqualTo(Check.NEW);
    assertThat(marks.check(A, 42)).isEqualTo(Check.FOUND);
    assertThat(marks.entry()).isEqualTo(answer(42));
  }

  @Test
  void callIdsCompareUnsignedAsTheirKeysDo() throws IOException {
    stored(A, 0, -2L); // -2 is 2^64 - 2, the second highest id
    CallWatermarks marks = new CallWatermarks(view);
    assertThat(marks.check(A, 0)).isEqualTo(Check.FOUND);
    assertThat(marks.check(A, Long.MAX_VALUE)).isEqualTo(Check.NEW);
    assertThat(marks.size()).as("an entry above 2^63 holds the watermark back").isZero();
    assertThat(marks.check(A, -2L)).isEqualTo(Check.FOUND);
    assertThat(marks.check(A, -1L)).isEqualTo(Check.NEW);
    assertThat(marks.check(A, -2L)).isEqualTo(Check.LOOK_UP);
    assertThat(marks.check(A, 1)).isEqualTo(Check.LOOK_UP);
  }

  @Test
  void aForgottenClientIsProbedAgainAndItsEntriesAreStillFound() throws IOException {
    CallWatermarks marks = new CallWatermarks(view, 1);
    assertThat(marks.check(A, 20)).isEqualTo(Check.NEW);
    // Call 20 is applied: its entry is pending, then B pushes A out.
    view.add(StoreBatch.builder().put(ColumnFamily.RETRY, Keys.retry(A, 20), answer(20)).build());
    assertThat(marks.check(B, 1)).isEqualTo(Check.NEW);
    assertThat(marks.size()).isEqualTo(1);
    assertThat(marks.check(A, 20)).as("a retry of 20 after A was forgotten").isEqualTo(Check.FOUND);
    assertThat(marks.entry()).isEqualTo(answer(20));
  }
}
