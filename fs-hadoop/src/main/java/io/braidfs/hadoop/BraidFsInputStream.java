package io.braidfs.hadoop;

import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_BYTES;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_EXCEPTIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_OPERATIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_READ_VECTORED_OPERATIONS;
import static org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding.iostatisticsStore;

import io.braidfs.client.BraidInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanSetReadahead;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.VectoredReadUtils;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;
import org.jspecify.annotations.Nullable;

/**
 * The Hadoop face of a {@link BraidInputStream}: seekable and positioned reads (byte arrays and
 * byte buffers), vectored reads issued in parallel, read-ahead control, unbuffer, and statistics
 * (FileSystem.Statistics for Spark's task metrics, IOStatistics for Hadoop's).
 *
 * <p>Thread-safety: as {@link BraidInputStream}: sequential reads are serialised on the stream,
 * positioned and vectored reads may run concurrently with them and with each other.
 */
final class BraidFsInputStream extends FSInputStream
    implements ByteBufferReadable,
        ByteBufferPositionedReadable,
        CanUnbuffer,
        CanSetReadahead,
        StreamCapabilities,
        IOStatisticsSource {
  private final BraidInputStream in;
  private final FileSystem.@Nullable Statistics statistics;
  private final Executor parallel;
  private final IOStatisticsStore io =
      iostatisticsStore()
          .withCounters(
              STREAM_READ_BYTES,
              STREAM_READ_OPERATIONS,
              STREAM_READ_EXCEPTIONS,
              STREAM_READ_SEEK_OPERATIONS,
              STREAM_READ_VECTORED_OPERATIONS)
          .build();

  BraidFsInputStream(
      BraidInputStream in, FileSystem.@Nullable Statistics statistics, Executor parallel) {
    this.in = in;
    this.statistics = statistics;
    this.parallel = parallel;
  }

  @Override
  public void seek(long pos) throws IOException {
    io.incrementCounter(STREAM_READ_SEEK_OPERATIONS);
    in.seek(pos);
  }

  @Override
  public long getPos() throws IOException {
    return in.getPos();
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false; // the reader moves to another replica on its own when one fails
  }

  @Override
  public int read() throws IOException {
    int b = guard(in::read);
    if (b >= 0) {
      counted(1);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    return counted(guard(() -> in.read(b, off, len)));
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return counted(guard(() -> in.read(dst)));
  }

  @Override
  public int read(long position, byte[] b, int off, int len) throws IOException {
    if (b == null) {
      throw new IllegalArgumentException("read at " + position + " into a null buffer");
    }
    return counted(guard(() -> in.read(position, b, off, len)));
  }

  @Override
  public void readFully(long position, byte[] b, int off, int len) throws IOException {
    guard(
        () -> {
          in.readFully(position, b, off, len);
          return 0;
        });
    counted(len);
  }

  @Override
  public int read(long position, ByteBuffer dst) throws IOException {
    return counted(guard(() -> in.read(position, dst)));
  }

  @Override
  public void readFully(long position, ByteBuffer dst) throws IOException {
    int len = dst.remaining();
    guard(
        () -> {
          in.readFully(position, dst);
          return 0;
        });
    counted(len);
  }

  /**
   * Reads the ranges in parallel, each straight from its data servers (the stream's position and
   * window are untouched). Ranges are checked first as the specification says: overlapping ranges
   * raise IllegalArgumentException, a range past the end EOFException.
   */
  @Override
  public void readVectored(
      List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> free)
      throws IOException {
    Objects.requireNonNull(allocate, "allocate");
    Objects.requireNonNull(free, "release");
    io.incrementCounter(STREAM_READ_VECTORED_OPERATIONS);
    List<? extends FileRange> sorted =
        VectoredReadUtils.validateAndSortRanges(ranges, Optional.of(in.length()));
    for (FileRange range : sorted) {
      CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
      range.setData(result);
      parallel.execute(
          () -> {
            ByteBuffer buffer = allocate.apply(range.getLength());
            try {
              readFully(range.getOffset(), buffer);
              buffer.flip();
              result.complete(buffer);
            } catch (IOException | RuntimeException e) {
              free.accept(buffer);
              result.completeExceptionally(e);
            }
          });
    }
  }

  @Override
  public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate)
      throws IOException {
    readVectored(ranges, allocate, buffer -> {});
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  @Override
  public long skip(long n) throws IOException {
    return in.skip(n);
  }

  @Override
  public void setReadahead(@Nullable Long readahead) {
    in.setReadahead(readahead);
  }

  @Override
  public void unbuffer() {
    in.unbuffer();
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.READAHEAD,
          StreamCapabilities.UNBUFFER,
          StreamCapabilities.READBYTEBUFFER,
          StreamCapabilities.PREADBYTEBUFFER,
          StreamCapabilities.IOSTATISTICS,
          StreamCapabilities.VECTOREDIO ->
          true;
      default -> false;
    };
  }

  @Override
  public IOStatistics getIOStatistics() {
    return io;
  }

  @Override
  public void close() {
    in.close();
  }

  @Override
  public String toString() {
    return "BraidFsInputStream{" + in.path() + ", " + io + "}";
  }

  /** Counts a successful read of {@code n} bytes (-1, end of file, counts nothing). */
  private int counted(int n) {
    io.incrementCounter(STREAM_READ_OPERATIONS);
    if (n > 0) {
      io.incrementCounter(STREAM_READ_BYTES, n);
      if (statistics != null) {
        statistics.incrementBytesRead(n);
      }
    }
    return n;
  }

  /** Runs a read, counting its failure. */
  private int guard(IoCall call) throws IOException {
    try {
      return call.run();
    } catch (EOFException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      io.incrementCounter(STREAM_READ_EXCEPTIONS);
      throw e;
    }
  }

  /** A read that may fail. */
  @FunctionalInterface
  private interface IoCall {
    int run() throws IOException;
  }
}
