package io.braidfs.bench.driver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The write and read loops of the data experiments, the same for every {@link Target}: a file of
 * {@code size} bytes written in application blocks of {@code block} bytes (optionally with a sync
 * after each), closed, and read back in blocks of the same size.
 *
 * <p>Every file holds the same content: an 8 MiB random pattern repeated, so byte {@code p} of any
 * file is {@code PATTERN[p % 8 MiB]}. Timed reads check the first and last 8 bytes of every block
 * against it (a misplaced or missing block fails the run; the cost is nothing next to the read),
 * and {@link #verify} compares every byte, once per system per run, outside the timing.
 *
 * <p>Thread-safety: thread-safe; the pattern is never written after class initialization.
 */
final class Transfers {
  /** Largest application block; every block size divides it. */
  static final int MAX_BLOCK = 8 << 20;

  private static final byte[] PATTERN = new byte[MAX_BLOCK];

  static {
    new Random(42).nextBytes(PATTERN);
  }

  private Transfers() {}

  /**
   * Writes {@code file} and closes it; the nanoseconds from create to the end of close.
   *
   * @param syncEach sync after every block (hsync; fdatasync), else only the durable close
   */
  static long write(Target t, String file, long size, int block, boolean syncEach)
      throws IOException {
    checkBlock(size, block);
    long t0 = System.nanoTime();
    try (Target.Sink out = t.create(file)) {
      for (long done = 0; done < size; done += block) {
        out.write(PATTERN, (int) (done % MAX_BLOCK), block);
        if (syncEach) {
          out.sync();
        }
      }
    } catch (IOException e) {
      throw new IOException(t.system() + ": writing " + file + " failed", e);
    }
    return System.nanoTime() - t0;
  }

  /**
   * Reads {@code file} through in reads of {@code block} bytes; the nanoseconds from open to the
   * end of close.
   *
   * @throws IOException if its length is not {@code size} or a block's ends do not hold the pattern
   */
  static long read(Target t, String file, long size, int block) throws IOException {
    checkBlock(size, block);
    byte[] buf = new byte[block];
    long t0 = System.nanoTime();
    long done = 0;
    try (Target.Source in = t.open(file)) {
      int n;
      while ((n = fill(in, buf)) > 0) {
        checkEnds(t, file, buf, done, n);
        done += n;
      }
    } catch (IOException e) {
      throw new IOException(t.system() + ": reading " + file + " at offset " + done + " failed", e);
    }
    long nanos = System.nanoTime() - t0;
    if (done != size) {
      throw new IOException(t.system() + ": read " + done + " bytes of " + file + ", not " + size);
    }
    return nanos;
  }

  /** Reads {@code file} in 1 MiB reads and compares every byte with what was written. */
  static void verify(Target t, String file, long size) throws IOException {
    byte[] buf = new byte[1 << 20];
    long done = 0;
    try (Target.Source in = t.open(file)) {
      int n;
      while ((n = fill(in, buf)) > 0) {
        int at = (int) (done % MAX_BLOCK);
        int m = Arrays.mismatch(buf, 0, n, PATTERN, at, at + n);
        if (m >= 0) {
          throw new IOException(
              t.system() + ": " + file + " holds a wrong byte at offset " + (done + m));
        }
        done += n;
      }
    }
    if (done != size) {
      throw new IOException(t.system() + ": " + file + " has " + done + " bytes, not " + size);
    }
  }

  /**
   * An unrecorded pass through {@code t} before measuring (JIT compilation, connections): writes a
   * file, compares every byte read back with what was written, deletes it.
   */
  static void warmUpAndVerify(Target t, String file, long size, int block) throws IOException {
    write(t, file, size, block, false);
    read(t, file, size, block);
    verify(t, file, size);
    t.delete(file);
  }

  /** A power-of-two size in words: "8 KiB", "1 MiB", "2 GiB". */
  static String label(long bytes) {
    if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + " GiB";
    }
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    return bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
  }

  /**
   * Runs {@code jobs} at once, each on its own thread, released together; the wall-clock
   * nanoseconds until the last one ends.
   *
   * @throws IOException the first job's failure
   */
  static long parallel(List<Callable<?>> jobs) throws IOException, InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(jobs.size());
    try {
      CountDownLatch ready = new CountDownLatch(jobs.size());
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> running = new ArrayList<>();
      for (Callable<?> job : jobs) {
        running.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return job.call();
                }));
      }
      ready.await();
      long t0 = System.nanoTime();
      go.countDown();
      for (Future<?> f : running) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      }
      return System.nanoTime() - t0;
    } finally {
      // On a failure the other jobs are interrupted; wait for them, so none still writes to a
      // cluster the next measurement uses.
      pool.shutdownNow();
      if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
        System.err.println("braid bench: transfers still running a minute after they were stopped");
      }
    }
  }

  /** Reads until {@code buf} is full or the file ends; the bytes read, or -1 at the end. */
  private static int fill(Target.Source in, byte[] buf) throws IOException {
    int n = 0;
    while (n < buf.length) {
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        break;
      }
      n += r;
    }
    return n == 0 ? -1 : n;
  }

  private static void checkEnds(Target t, String file, byte[] buf, long pos, int n)
      throws IOException {
    int k = Math.min(8, n);
    int at = (int) (pos % MAX_BLOCK);
    int end = (int) ((pos + n - k) % MAX_BLOCK);
    if (!Arrays.equals(buf, 0, k, PATTERN, at, at + k)
        || !Arrays.equals(buf, n - k, n, PATTERN, end, end + k)) {
      throw new IOException(
          t.system() + ": " + file + " holds wrong bytes in the block at offset " + pos);
    }
  }

  private static void checkBlock(long size, int block) {
    if (block <= 0 || MAX_BLOCK % block != 0 || size % block != 0) {
      throw new IllegalArgumentException(
          "block " + block + " must divide 8 MiB and the file size " + size);
    }
  }
}
