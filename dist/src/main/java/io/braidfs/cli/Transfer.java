package io.braidfs.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The copy loop of {@code braid fs put}, {@code get} and {@code cat}: buffer by buffer, checking
 * the stop signal between buffers (so Ctrl-C ends a long copy), blaming a failure on the side that
 * failed, and drawing a progress bar on stderr for a big copy when a person is watching.
 *
 * <p>Thread-safety: stateless.
 */
final class Transfer {
  /** Copies at least this big get a progress bar (when there is a terminal). */
  static final long PROGRESS_THRESHOLD = 64L << 20;

  /** Bytes moved per read and write: one default stripe unit. */
  static final int BUFFER = 1 << 20;

  private Transfer() {}

  /**
   * Copies {@code in} to its end into {@code out}; neither is closed.
   *
   * @param from the source's name in messages
   * @param to the destination's name in messages
   * @param size the bytes expected, or -1 if unknown; only for the progress bar
   * @param task the progress bar's label, such as {@code put}
   * @return the bytes copied
   * @throws PathFailure naming {@code from} if reading failed, {@code to} if writing failed or a
   *     stop was requested
   */
  static long copy(
      InputStream in,
      String from,
      OutputStream out,
      String to,
      long size,
      String task,
      StopSignal stop)
      throws PathFailure {
    try (ProgressBar bar = progressBar(task, size)) {
      return copy(in, from, out, to, size, stop, bar);
    }
  }

  /**
   * As {@link #copy(InputStream, String, OutputStream, String, long, String, StopSignal)}, stepping
   * {@code bar} (shared by the copies of a tree; not closed here) instead of a bar of its own.
   */
  static long copy(
      InputStream in,
      String from,
      OutputStream out,
      String to,
      long size,
      StopSignal stop,
      @Nullable ProgressBar bar)
      throws PathFailure {
    byte[] buffer = new byte[(int) Math.max(1, Math.min(BUFFER, size < 0 ? BUFFER : size))];
    long total = 0;
    while (true) {
      if (stop.isRequested()) {
        throw new PathFailure(to, "interrupted");
      }
      int n;
      try {
        n = in.read(buffer);
      } catch (IOException e) {
        throw new PathFailure(from, e);
      }
      if (n < 0) {
        return total;
      }
      try {
        out.write(buffer, 0, n);
      } catch (IOException e) {
        throw new PathFailure(to, e);
      }
      total += n;
      if (bar != null) {
        bar.stepBy(n);
      }
    }
  }

  /** Whether a copy of {@code size} bytes shows a progress bar. */
  static boolean showsProgress(long size) {
    return size >= PROGRESS_THRESHOLD && System.console() != null;
  }

  /** A bar for {@code size} bytes labelled {@code task}, or null if {@link #showsProgress} not. */
  static @Nullable ProgressBar progressBar(String task, long size) {
    if (!showsProgress(size)) {
      return null;
    }
    return new ProgressBarBuilder()
        .setTaskName(task)
        .setInitialMax(size)
        .setUnit("MiB", 1L << 20)
        .showSpeed()
        .setUpdateIntervalMillis(250)
        .setConsumer(new ConsoleProgressBarConsumer(System.err))
        .build();
  }
}
