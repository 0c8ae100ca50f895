package io.braidfs.bench.driver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * One cell of a data experiment: write a file (or one file per concurrent writer), read it back,
 * record both rates in MiB/s in the experiment's write and read tables, delete it. Optionally also
 * a cold read after {@link Run#dropCaches()}.
 *
 * <p>Thread-safety: not thread-safe; the experiment's thread drives it.
 */
final class WriteThenRead {
  private final Results results;
  private final String writeTable;
  private final @Nullable String readTable;
  private boolean syncEach;
  private @Nullable String coldTable;

  /** Records writes in {@code writeTable} and reads in {@code readTable}; no reads if null. */
  WriteThenRead(Results results, String writeTable, @Nullable String readTable) {
    this.results = results;
    this.writeTable = writeTable;
    this.readTable = readTable;
  }

  /** Syncs after every write (hsync; fdatasync) instead of only at close. */
  WriteThenRead syncEachWrite() {
    syncEach = true;
    return this;
  }

  /**
   * Also reads every file again after dropping the page cache, into {@code table}; nothing when the
   * driver cannot drop it (not root).
   */
  WriteThenRead coldReadsTo(String table) {
    coldTable = table;
    return this;
  }

  /** Writes then reads one file of {@code size} bytes through {@code t} in {@code block}s. */
  void run(Target t, String row, double x, int round, long size, int block)
      throws IOException, InterruptedException {
    String file = file(t.system(), row, round, 0);
    String system = t.system();
    results.recordRate(
        writeTable, row, x, system, round, size, Transfers.write(t, file, size, block, syncEach));
    if (readTable != null) {
      results.recordRate(
          readTable, row, x, system, round, size, Transfers.read(t, file, size, block));
    }
    if (coldTable != null && Run.dropCaches()) {
      results.recordRate(
          coldTable, row, x, system, round, size, Transfers.read(t, file, size, block));
    }
    t.delete(file);
  }

  /**
   * Writes one file per target at once (each target its own client, or one target several times),
   * then reads them all back at once; records the aggregate rates under {@code system}.
   */
  void runConcurrently(
      String system, List<Target> targets, String row, double x, int round, long size, int block)
      throws IOException, InterruptedException {
    List<String> files = new ArrayList<>();
    List<Callable<?>> writes = new ArrayList<>();
    List<Callable<?>> reads = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Target t = targets.get(i);
      String file = file(system, row, round, i);
      files.add(file);
      writes.add(() -> Transfers.write(t, file, size, block, syncEach));
      reads.add(() -> Transfers.read(t, file, size, block));
    }
    long total = size * targets.size();
    results.recordRate(writeTable, row, x, system, round, total, Transfers.parallel(writes));
    if (readTable != null) {
      results.recordRate(readTable, row, x, system, round, total, Transfers.parallel(reads));
    }
    for (int i = 0; i < targets.size(); i++) {
      targets.get(i).delete(files.get(i));
    }
  }

  private static String file(String system, String row, int round, int writer) {
    return String.format(
        Locale.ROOT, "%s-%s-r%d-w%d", Results.slug(system), Results.slug(row), round, writer);
  }
}
