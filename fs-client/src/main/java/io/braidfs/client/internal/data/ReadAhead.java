package io.braidfs.client.internal.data;

import io.braidfs.client.ClientOptions;
import io.braidfs.client.StreamStats;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The read-ahead window of one input stream (ARCHITECTURE section 6). A read that continues where
 * the last one ended is sequential: it opens a window of one block, which doubles each time a block
 * is consumed, up to a cap derived from what the stream measures, twice the bandwidth-delay product
 * (the highest delivery rate seen times the lowest block latency seen, as BBR estimates a path),
 * plus a block, and at most {@link ClientOptions#maxWindow()}. Blocks are fetched asynchronously,
 * each from its own stripe unit, so a window keeps requests in flight to several servers at once. A
 * read anywhere else drops the window and fetches only what was asked; a seek that lands inside the
 * window keeps it. Every block's bytes are reserved from the client's {@link PrefetchBudget} first;
 * a stream that cannot reserve reads ahead less, never waits.
 *
 * <p>Thread-safety: not thread-safe; its stream serialises calls. Completions of block fetches (on
 * event loops) only set volatile fields of their block.
 */
public final class ReadAhead {
  /** How many recent block arrivals a delivery-rate sample spans. */
  private static final int RATE_SPAN = 8;

  private final StripedReader reader;
  private final PrefetchBudget budget;
  private final boolean configuredEnabled;
  private final long configuredWindow;
  private boolean enabled;
  private long fixedWindow;
  private final long maxWindow;
  private final int block;
  private final int stripeUnit;
  private final ArrayDeque<Block> blocks = new ArrayDeque<>();
  private final long[] arrivals = new long[RATE_SPAN];
  private final long[] arrivalBytes = new long[RATE_SPAN];
  private int arrivalCount;
  private long window;
  private long nextIssue;
  private long lastEnd = -1;
  private long minLatencyNanos = Long.MAX_VALUE;
  private double maxRate; // bytes per nanosecond
  private long asked;
  private long fetched;
  private long wasted;
  private long stalls;

  public ReadAhead(
      StripedReader reader, PrefetchBudget budget, ClientOptions options, int stripeUnit) {
    this.reader = reader;
    this.budget = budget;
    this.configuredEnabled = options.prefetch();
    this.configuredWindow = options.fixedWindow();
    this.enabled = configuredEnabled;
    this.fixedWindow = configuredWindow;
    this.maxWindow = options.maxWindow();
    this.stripeUnit = stripeUnit;
    this.block =
        Math.min(options.prefetchBlock(), Math.min(stripeUnit, options.data().maxTransfer()));
  }

  public StreamStats stats() {
    return new StreamStats(asked, fetched, wasted, window, stalls);
  }

  /**
   * Reads up to {@code n} bytes at {@code pos} (below {@code fileLength}) into {@code dst} at its
   * writer index.
   *
   * @return the bytes read, at least 1; or -1 if the MDS now says the file ends before {@code pos}
   */
  public int read(long pos, ByteBuf dst, int n, long fileLength) throws IOException {
    int copied = enabled ? fromWindow(pos, dst, n, fileLength) : 0;
    if (copied == 0) {
      copied = direct(pos, dst, n);
      if (copied < 0) {
        return -1;
      }
    }
    lastEnd = pos + copied;
    asked += copied;
    return copied;
  }

  private int fromWindow(long pos, ByteBuf dst, int n, long fileLength) throws IOException {
    while (!blocks.isEmpty() && blocks.peekFirst().end() <= pos) {
      drop(blocks.removeFirst());
    }
    Block first = blocks.peekFirst();
    if (first == null || first.offset > pos) {
      boolean sequential = pos == lastEnd;
      dropAll();
      if (!sequential) {
        window = 0;
        return 0;
      }
      if (window == 0) {
        window = fixedWindow > 0 ? fixedWindow : block;
      }
      nextIssue = pos;
      topUp(pos, fileLength);
    }
    int copied = 0;
    Block b;
    while (copied < n && (b = blocks.peekFirst()) != null && b.offset <= pos + copied) {
      ByteBuf data = await(b);
      if (data == null) {
        dropAll(); // a replica failed: read on demand, which refreshes tokens and locations
        return copied;
      }
      int in = (int) (pos + copied - b.offset);
      int k = Math.min(n - copied, b.length - in);
      int have = Math.max(0, Math.min(k, data.readableBytes() - in));
      if (have > 0) {
        dst.writeBytes(data, data.readerIndex() + in, have);
      }
      dst.writeZero(k - have); // a hole in the file
      b.consumed += k;
      copied += k;
      if (in + k == b.length) {
        blocks.removeFirst();
        release(b);
        grow(b);
      }
      topUp(pos + copied, fileLength);
    }
    return copied;
  }

  /** The block's bytes, waiting for them if needed; null if the fetch failed. */
  private @Nullable ByteBuf await(Block b) throws IOException {
    if (!b.data.isDone()) {
      stalls++;
    }
    try {
      return b.data.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("read-ahead wait interrupted");
    } catch (ExecutionException e) {
      return null;
    }
  }

  /**
   * Issues blocks until the window ahead of {@code pos} is covered, the file ends or memory does.
   */
  private void topUp(long pos, long fileLength) throws IOException {
    long target = Math.min(pos + window, fileLength);
    while (nextIssue < target) {
      long end = Math.min(fileLength, nextBoundary(nextIssue));
      int len = (int) (end - nextIssue);
      if (!budget.tryReserve(len)) {
        return;
      }
      CompletableFuture<ByteBuf> f;
      try {
        f = reader.readAhead(nextIssue, len);
      } catch (IOException | RuntimeException e) {
        budget.release(len);
        return; // the demand read will report it if it persists
      }
      Block b = new Block(nextIssue, len, System.nanoTime(), f);
      blocks.addLast(b);
      fetched += len;
      nextIssue = end;
    }
  }

  /** The next block or stripe-unit boundary after {@code offset}. */
  private long nextBoundary(long offset) {
    long nextBlock = (offset / block + 1) * block;
    long nextUnit = (offset / stripeUnit + 1) * stripeUnit;
    return Math.min(nextBlock, nextUnit);
  }

  /** A block was consumed whole: learn from its timing and widen the window. */
  private void grow(Block b) {
    long arrived = b.arrived;
    if (arrived != 0) {
      long latency = Math.max(1, arrived - b.issued);
      minLatencyNanos = Math.min(minLatencyNanos, latency);
      arrivals[arrivalCount % RATE_SPAN] = arrived;
      arrivalBytes[arrivalCount % RATE_SPAN] = b.length;
      arrivalCount++;
      double rate = (double) b.length / latency;
      int span = Math.min(arrivalCount, RATE_SPAN);
      if (span >= 2) {
        // Blocks from different servers arrive out of order: span the earliest to the latest.
        int earliest = 0;
        long latest = Long.MIN_VALUE;
        long bytes = 0;
        for (int j = 0; j < span; j++) {
          earliest = arrivals[j] - arrivals[earliest] < 0 ? j : earliest;
          latest = Math.max(latest, arrivals[j]);
          bytes += arrivalBytes[j];
        }
        long dt = latest - arrivals[earliest];
        if (dt > 0) {
          rate = Math.max(rate, (double) (bytes - arrivalBytes[earliest]) / dt);
        }
      }
      maxRate = Math.max(maxRate, rate);
    }
    if (fixedWindow > 0) {
      return;
    }
    long cap = maxWindow;
    if (maxRate > 0 && minLatencyNanos != Long.MAX_VALUE) {
      long bdp = (long) (maxRate * minLatencyNanos);
      cap = Math.max(block, Math.min(maxWindow, 2 * bdp + block));
    }
    window = Math.min(Math.max(window, block) * 2, cap);
  }

  private int direct(long pos, ByteBuf dst, int n) throws IOException {
    int got = reader.read(pos, dst, n);
    if (got > 0) {
      fetched += got;
    }
    return got;
  }

  private void dropAll() {
    while (!blocks.isEmpty()) {
      drop(blocks.removeFirst());
    }
  }

  /** Drops a block not wholly consumed: its unread bytes were fetched for nothing. */
  private void drop(Block b) {
    wasted += b.length - b.consumed;
    release(b);
  }

  /** Frees a block's buffer and gives its bytes back to the budget, once it has arrived. */
  private void release(Block b) {
    b.data.whenComplete(
        (data, failure) -> {
          if (data != null) {
            data.release();
          }
          budget.release(b.length);
        });
  }

  /**
   * Replaces the configured window: null restores it, 0 turns read-ahead off, a positive value
   * fixes the window. The current window is dropped so the next read starts under the new rule.
   */
  public void override(@Nullable Long bytes) {
    close();
    if (bytes == null) {
      enabled = configuredEnabled;
      fixedWindow = configuredWindow;
    } else {
      enabled = bytes > 0;
      fixedWindow = bytes;
    }
  }

  /** Drops the window; later reads start afresh. */
  public void close() {
    dropAll();
    window = 0;
    lastEnd = -1;
  }

  /** One read-ahead request: {@code length} file bytes at {@code offset}. */
  private static final class Block {
    final long offset;
    final int length;
    final long issued;

    @SuppressWarnings("NullAway.Init") // set right after construction, before any use
    CompletableFuture<ByteBuf> data;

    volatile long arrived;
    int consumed;

    Block(long offset, int length, long issued, CompletableFuture<ByteBuf> fetch) {
      this.offset = offset;
      this.length = length;
      this.issued = issued;
      // Stamped before the stream can see the bytes, so the arrival time is always there.
      this.data = fetch.whenComplete((bytes, failure) -> arrived = System.nanoTime());
    }

    long end() {
      return offset + length;
    }
  }
}
