package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.NoNativeLeaks;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kills a writing process and checks what the store recovers: a child JVM appends mutations to a
 * {@link WalJournal} as fast as it can from one thread, with many in flight, printing each
 * acknowledged journal index, and is killed (SIGKILL, no close) after a number of acknowledgements.
 * Reopened, the store must hold every acknowledged mutation, and exactly the mutations up to its
 * applied index (a prefix of the appends), each one whole, with its journal record.
 *
 * <p>A process kill keeps what reached the operating system, so this checks atomicity, the
 * applied-index bookkeeping and the journal records across a crash, not the sync itself (that needs
 * a power cut).
 */
@ExtendWith(NoNativeLeaks.class)
class WalJournalCrashTest {
  private static final Logger LOG = LoggerFactory.getLogger(WalJournalCrashTest.class);

  /** Mutations rotate over this many directories, as if from several clients. */
  private static final int CLIENTS = 4;

  private static final int ACKS_BEFORE_KILL = 2000;

  /**
   * Acknowledgements between seeing a WAL file reused and the kill: about half a WAL's worth of
   * padded mutations, so the kill lands inside a file rather than near a switch to the next.
   */
  private static final int ACKS_AFTER_REUSE = 1000;

  /** Padding per mutation when WAL files must fill and be recycled before the kill. */
  private static final int PADDED_BYTES = 4096;

  /** About ten WAL files' worth of padded mutations: recycling starts after two or three. */
  private static final int MAX_ACKS_WITHOUT_REUSE = 20_000;

  /** Journal records read at once when checking them. */
  private static final int JOURNAL_PAGE = 1000;

  private static final int IN_FLIGHT = 64;

  @TempDir Path dir;

  @Test
  @Timeout(90)
  void aKilledWriterLeavesExactlyTheAppliedMutationsEachWhole() throws Exception {
    killAndCheck(dir, 0, false);
  }

  /**
   * The same over reused WAL files: with 4 KiB mutations the memtables fill every two thousand or
   * so records and finished WAL files are recycled. The writer is killed while writing over one, so
   * recovery meets what the file's previous use left after the last record and must stop there,
   * which RocksDB's info log reports ("dropping 0 bytes; possibly recycled"). A kill can land past
   * the old file's length, or in a new file, leaving nothing old to meet; then the run is repeated,
   * up to three times. The checks of what was recovered hold either way.
   */
  @Test
  @Timeout(180)
  void aKilledWriterOverARecycledWalFileLeavesExactlyTheAppliedMutations() throws Exception {
    List<String> recoveries = new ArrayList<>();
    for (int attempt = 1; attempt <= 3; attempt++) {
      Path attemptDir = dir.resolve("attempt-" + attempt);
      killAndCheck(attemptDir, PADDED_BYTES, true);
      String log = Files.readString(attemptDir.resolve("LOG"));
      if (log.contains("possibly recycled")) {
        return;
      }
      recoveries.add(log.lines().filter(l -> l.contains("dropping")).toList().toString());
    }
    fail("recovery never stopped at an old record of a recycled WAL file: %s", recoveries);
  }

  private void killAndCheck(Path storeDir, int pad, boolean untilRecycled) throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Writer.class.getName(),
                storeDir.toString(),
                Integer.toString(pad))
            .redirectErrorStream(true)
            .start();
    List<Long> acked = new ArrayList<>();
    List<String> output = new ArrayList<>();
    int killAt = untilRecycled ? Integer.MAX_VALUE : ACKS_BEFORE_KILL;
    boolean ended = false;
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      while (acked.size() < killAt
          && (killAt != Integer.MAX_VALUE || acked.size() <= MAX_ACKS_WITHOUT_REUSE)) {
        String line = lines.readLine();
        if (line == null) {
          ended = true;
          break;
        }
        if (line.startsWith("ACK ")) {
          acked.add(Long.parseLong(line.substring(4)));
          if (killAt == Integer.MAX_VALUE && acked.size() % 500 == 0 && reusedWalFile(storeDir)) {
            killAt = acked.size() + ACKS_AFTER_REUSE;
          }
        } else {
          output.add(line);
        }
      }
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    if (ended) {
      fail("the writer ended early:%n%s", String.join("\n", output));
    }
    if (killAt == Integer.MAX_VALUE) {
      fail("no WAL file was reused after %d acknowledged mutations", acked.size());
    }
    long maxAcked = acked.stream().mapToLong(Long::longValue).max().orElseThrow();

    try (RocksMetadataStore store = new RocksMetadataStore("recovered", options(storeDir))) {
      store.start();
      long applied = store.appliedIndex();
      assertThat(applied).isGreaterThanOrEqualTo(maxAcked);
      // Each mutation created exactly one inode; indexes 1..applied are there, nothing after.
      List<ScanPage.Entry> inodes =
          store.scan(ColumnFamily.INODES, new byte[0], null, Integer.MAX_VALUE).entries();
      assertThat(inodes).hasSize(Math.toIntExact(applied));
      for (long index = 1; index <= applied; index++) {
        long ino = ino(index);
        assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino))).isEqualTo(Keys.u64(ino));
        assertThat(store.get(ColumnFamily.DENTRIES, dentry(index))).isEqualTo(Keys.u64(ino));
      }
      assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino(applied + 1)))).isNull();
      for (long index : acked) {
        assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino(index)))).isNotNull();
      }
      // The journal holds a record per applied mutation, each equal to what was applied; read in
      // pages, as padded records would not fit in memory at once.
      WalJournal journal =
          new WalJournal("recovered", store, BraidConfig.defaults(), Clock.system());
      for (long from = 1; from <= applied; from += JOURNAL_PAGE) {
        int count = (int) Math.min(JOURNAL_PAGE, applied - from + 1);
        List<JournalRecord> records = journal.read(from, count);
        assertThat(records).hasSize(count);
        for (JournalRecord r : records) {
          assertThat(r.batch()).isEqualTo(create(r.index(), pad));
          assertThat(r.operation()).isEqualTo("create f" + r.index());
        }
      }
      assertThat(journal.read(applied + 1, 1)).isEmpty();
      LOG.info(
          "killed after {} acknowledged mutations (highest index {}); recovered applied index {}",
          acked.size(),
          maxAcked,
          applied);
    }
  }

  /** Whether RocksDB's info log tells of a WAL file taken from its recycle list. */
  private static boolean reusedWalFile(Path storeDir) throws IOException {
    Path log = storeDir.resolve("LOG");
    return Files.exists(log) && Files.readString(log).contains("reusing log");
  }

  /** The inode the mutation at journal index {@code index} creates. */
  private static long ino(long index) {
    return 1_000_000_000L + index;
  }

  private static byte[] dentry(long index) {
    return Keys.dentry(index % CLIENTS + 1, "f" + index);
  }

  /**
   * The mutation the writer appends as journal record {@code index}, with a {@code pad}-byte xattr
   * if {@code pad > 0}.
   */
  static StoreBatch create(long index, int pad) {
    long ino = ino(index);
    StoreBatch.Builder b =
        StoreBatch.builder()
            .put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino))
            .put(ColumnFamily.DENTRIES, dentry(index), Keys.u64(ino))
            .put(ColumnFamily.META, Keys.meta("last-" + index % CLIENTS), Keys.u64(index));
    if (pad > 0) {
      byte[] value = new byte[pad];
      Arrays.fill(value, (byte) index);
      b.put(ColumnFamily.XATTRS, Keys.xattr(ino, "user.pad"), value);
    }
    return b.build();
  }

  static StoreOptions options(Path dir) {
    return new StoreOptions(dir, true, DataSize.ofMiB(8));
  }

  /** The child process: appends until killed, printing "ACK index" per durable mutation. */
  static final class Writer {
    private Writer() {}

    public static void main(String[] args) throws IOException {
      PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
      int pad = Integer.parseInt(args[1]);
      RocksMetadataStore store = new RocksMetadataStore("crash", options(Path.of(args[0])));
      store.start();
      WalJournal journal = new WalJournal("crash", store, BraidConfig.defaults(), Clock.system());
      journal.start();
      Semaphore inFlight = new Semaphore(IN_FLIGHT);
      // One namespace thread appends; the indexes follow the appends from 1.
      for (long index = 1; ; index++) {
        inFlight.acquireUninterruptibly();
        journal
            .append("create f" + index, create(index, pad))
            .whenComplete(
                (acked, failure) -> {
                  inFlight.release();
                  if (failure == null) {
                    out.println("ACK " + acked);
                  } else {
                    // Else the parent would wait for acknowledgements that never come.
                    out.println("FAIL " + failure);
                    System.exit(1);
                  }
                });
      }
    }
  }
}
