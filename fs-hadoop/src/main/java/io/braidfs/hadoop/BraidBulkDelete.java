package io.braidfs.hadoop;

import static org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding.iostatisticsStore;

import io.braidfs.client.BraidClient;
import io.braidfs.common.error.Status;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.BulkDeleteUtils;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;
import org.jspecify.annotations.Nullable;

/**
 * Hadoop's bulk delete (as Iceberg and HBase use it to drop many files): a page of up to {@value
 * #PAGE_SIZE} paths under one base, each deleted as {@code delete(path, false)} would, one MDS
 * mutation per path (each atomic; the page is not), deepest paths first so that a directory given
 * with everything in it goes too, and paths of one depth concurrently. A path that is already gone
 * is not a failure; any other refusal (a directory with other contents) is reported for its path
 * and the rest go on.
 *
 * <p>Thread-safety: safe for concurrent use; the client is.
 */
final class BraidBulkDelete implements BulkDelete {
  static final int PAGE_SIZE = 250;

  private final BraidClient client;
  private final Path base;
  private final Executor executor;
  private final IOStatisticsStore io =
      iostatisticsStore().withCounters(StoreStatisticNames.OP_DELETE).build();

  BraidBulkDelete(BraidClient client, Path base, Executor executor) {
    this.client = client;
    this.base = base;
    this.executor = executor;
  }

  @Override
  public int pageSize() {
    return PAGE_SIZE;
  }

  @Override
  public Path basePath() {
    return base;
  }

  @Override
  public List<Map.Entry<Path, String>> bulkDelete(Collection<Path> paths) throws IOException {
    BulkDeleteUtils.validateBulkDeletePaths(paths, PAGE_SIZE, base);
    // Deepest level first: a directory listed with everything in it is empty by its turn. Within
    // a level the deletes run concurrently, so the MDS commits them in shared journal syncs.
    TreeMap<Integer, List<Path>> levels = new TreeMap<>(Comparator.reverseOrder());
    for (Path p : paths) {
      levels.computeIfAbsent(p.depth(), d -> new ArrayList<>()).add(p);
    }
    List<Map.Entry<Path, String>> failures = new ArrayList<>();
    for (List<Path> level : levels.values()) {
      List<CompletableFuture<@Nullable String>> outcomes = new ArrayList<>(level.size());
      for (Path p : level) {
        outcomes.add(CompletableFuture.supplyAsync(() -> delete(p), executor));
      }
      for (int i = 0; i < level.size(); i++) {
        String failure = outcomes.get(i).join();
        if (failure != null) {
          failures.add(new AbstractMap.SimpleImmutableEntry<>(level.get(i), failure));
        }
      }
    }
    return failures;
  }

  /** Deletes one path; the reason it could not be deleted, or null. */
  private @Nullable String delete(Path p) {
    io.incrementCounter(StoreStatisticNames.OP_DELETE);
    try {
      client.delete(p.toUri().getPath(), false);
      return null;
    } catch (IOException e) {
      return HadoopErrors.is(e, Status.NOT_FOUND) ? null : String.valueOf(e.getMessage());
    }
  }

  @Override
  public IOStatistics getIOStatistics() {
    return io;
  }

  @Override
  public void close() {}
}
