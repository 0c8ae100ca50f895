package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.braidfs.common.config.DataSize;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kills a writing process and checks what the store recovers: a child JVM commits batches through a
 * {@link GroupCommitter} as fast as it can, printing each acknowledged journal index, and is killed
 * (SIGKILL, no close) after a number of acknowledgements. Reopened, the store must hold every
 * acknowledged batch, and exactly the batches up to its applied index, each one whole.
 *
 * <p>A process kill keeps what reached the operating system, so this checks atomicity and the
 * applied-index bookkeeping across a crash, not the sync itself (that needs a power cut).
 */
@ExtendWith(NoNativeLeaks.class)
class MetadataStoreCrashTest {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataStoreCrashTest.class);
  private static final int WRITERS = 4;
  private static final int ACKS_BEFORE_KILL = 2000;

  @TempDir Path dir;

  @Test
  @Timeout(90)
  void aKilledWriterLeavesExactlyTheAppliedBatchesEachWhole() throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Writer.class.getName(),
                dir.toString())
            .redirectErrorStream(true)
            .start();
    Map<Long, Long> ackedIndexByInode = new HashMap<>();
    long maxAcked = 0;
    List<String> output = new ArrayList<>();
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while (ackedIndexByInode.size() < ACKS_BEFORE_KILL && (line = lines.readLine()) != null) {
        if (!line.startsWith("ACK ")) {
          output.add(line);
          continue;
        }
        String[] f = line.split(" ");
        long index = Long.parseLong(f[1]);
        ackedIndexByInode.put(id(Integer.parseInt(f[2]), Integer.parseInt(f[3])), index);
        maxAcked = Math.max(maxAcked, index);
      }
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    if (ackedIndexByInode.size() < ACKS_BEFORE_KILL) {
      fail("the writer ended early:%n%s", String.join("\n", output));
    }

    try (RocksMetadataStore store = new RocksMetadataStore("recovered", options(dir))) {
      store.start();
      long applied = store.appliedIndex();
      assertThat(applied).isGreaterThanOrEqualTo(maxAcked);
      // Each batch created exactly one inode, and indexes are 1..applied: nothing more or less.
      List<ScanPage.Entry> inodes =
          store.scan(ColumnFamily.INODES, new byte[0], null, Integer.MAX_VALUE).entries();
      assertThat(inodes).hasSize(Math.toIntExact(applied));
      long dentries = 0;
      for (int t = 0; t < WRITERS; t++) {
        List<ScanPage.Entry> entries =
            store
                .scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(t + 1), null, Integer.MAX_VALUE)
                .entries();
        dentries += entries.size();
        byte[] last = store.get(ColumnFamily.META, Keys.meta("last-" + t));
        // One writer's batches are applied in its order: a prefix 0..last, counter included.
        long expected = last == null ? 0 : Keys.readU64(last, 0) + 1;
        assertThat(entries).as("writer %d", t).hasSize(Math.toIntExact(expected));
        for (ScanPage.Entry e : entries) {
          long ino = Keys.readU64(e.value(), 0);
          assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino))).isEqualTo(Keys.u64(ino));
        }
      }
      assertThat(dentries).isEqualTo(applied);
      LOG.info(
          "killed after {} acknowledged batches (highest index {}); recovered applied index {}",
          ackedIndexByInode.size(),
          maxAcked,
          applied);
      for (Map.Entry<Long, Long> acked : ackedIndexByInode.entrySet()) {
        long ino = acked.getKey();
        assertThat(store.get(ColumnFamily.INODES, Keys.inode(ino))).isNotNull();
      }
    }
  }

  private static long id(int thread, int i) {
    return 1_000_000_000L * (thread + 1) + i;
  }

  static StoreOptions options(Path dir) {
    return new StoreOptions(dir, true, 1024, Duration.ofSeconds(30), DataSize.ofMiB(8));
  }

  /** The child process: writes until killed, printing "ACK index thread i" per durable batch. */
  static final class Writer {
    private Writer() {}

    public static void main(String[] args) throws IOException {
      PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
      RocksMetadataStore store = new RocksMetadataStore("crash", options(Path.of(args[0])));
      store.start();
      GroupCommitter committer = new GroupCommitter("crash", store, options(Path.of(args[0])));
      committer.start();
      for (int t = 0; t < WRITERS; t++) {
        int thread = t;
        new Thread(
                () -> {
                  for (int i = 0; ; i++) {
                    long ino = id(thread, i);
                    int n = i;
                    CompletableFuture<Long> f =
                        committer.submit(
                            StoreBatch.builder()
                                .put(ColumnFamily.INODES, Keys.inode(ino), Keys.u64(ino))
                                .put(
                                    ColumnFamily.DENTRIES,
                                    Keys.dentry(thread + 1, "f" + i),
                                    Keys.u64(ino))
                                .put(ColumnFamily.META, Keys.meta("last-" + thread), Keys.u64(i))
                                .build());
                    f.thenAccept(index -> out.println("ACK " + index + " " + thread + " " + n));
                    if (i % 8 == 7) {
                      f.join();
                    }
                  }
                },
                "writer-" + t)
            .start();
      }
    }
  }
}
