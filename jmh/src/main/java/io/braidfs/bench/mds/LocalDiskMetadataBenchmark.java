package io.braidfs.bench.mds;

import io.braidfs.bench.AbstractBenchmark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The reference for {@link MdsCreateBenchmark} and {@link MdsStatBenchmark}: the same operations on
 * the local file system (ext4 under {@code braid.bench.dir}) through {@code java.nio}, with the
 * same numbers of callers. A create is {@code open(O_CREAT|O_EXCL)} + {@code close} in the caller's
 * own directory; with {@code sync=true} it is followed by an fsync of that directory, which makes
 * the new name durable as an acknowledged MDS create is (one sync per create: the local file system
 * has no group commit across callers' fsyncs, though ext4 may share a journal commit between them).
 * A stat is {@code stat} of an existing file by path.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar LocalDiskMetadataBenchmark -f 3 -rf json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LocalDiskMetadataBenchmark extends AbstractBenchmark {
  /** Fsync the directory after each create. */
  @Param({"false", "true"})
  public boolean sync;

  /** Files created before the measurement for the stat benchmarks, over 16 directories. */
  @Param({"16384"})
  public int files;

  private static final int DIRS = 16;

  private Path root;
  private Path[] statPaths;
  private final AtomicInteger callers = new AtomicInteger();

  @Setup(Level.Trial)
  public void start() throws IOException {
    Path base =
        Path.of(System.getProperty("braid.bench.dir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(base);
    root = Files.createTempDirectory(base, "local-bench-");
    statPaths = new Path[files];
    for (int d = 0; d < DIRS; d++) {
      Files.createDirectory(root.resolve("stat-d" + d));
    }
    for (int k = 0; k < files; k++) {
      statPaths[k] = Files.createFile(root.resolve("stat-d" + (k % DIRS)).resolve("f" + k));
    }
  }

  @TearDown(Level.Trial)
  public void stop() {
    deleteTree(root);
  }

  /**
   * One caller: its own directory and counter, and its position in the stat list.
   *
   * <p>Thread-safety: confined to its JMH thread.
   */
  @State(Scope.Thread)
  public static class Caller {
    Path dir;
    long next;
    int cursor;
    int stride;

    @Setup(Level.Trial)
    public void join(LocalDiskMetadataBenchmark b) throws IOException {
      int id = b.callers.getAndIncrement();
      dir = Files.createDirectory(b.root.resolve("c" + id));
      cursor = (id * 7919) % b.files;
      stride = 2 * id + 1;
    }
  }

  private Path create(Caller c) throws IOException {
    Path p = c.dir.resolve("f" + c.next++);
    FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
    if (sync) {
      try (FileChannel d = FileChannel.open(c.dir, StandardOpenOption.READ)) {
        d.force(true);
      }
    }
    return p;
  }

  private BasicFileAttributes stat(Caller c) throws IOException {
    Path p = statPaths[c.cursor];
    c.cursor = (c.cursor + c.stride) % files;
    return Files.readAttributes(p, BasicFileAttributes.class);
  }

  @Benchmark
  @Threads(1)
  public Path create1(Caller c) throws IOException {
    return create(c);
  }

  @Benchmark
  @Threads(16)
  public Path create16(Caller c) throws IOException {
    return create(c);
  }

  @Benchmark
  @Threads(1)
  public BasicFileAttributes stat1(Caller c) throws IOException {
    return stat(c);
  }

  @Benchmark
  @Threads(16)
  public BasicFileAttributes stat16(Caller c) throws IOException {
    return stat(c);
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
