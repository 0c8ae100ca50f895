package io.braidfs.hadoop;

import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_BYTES;
import static org.apache.hadoop.fs.statistics.StreamStatisticNames.STREAM_WRITE_EXCEPTIONS;
import static org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding.iostatisticsStore;

import io.braidfs.client.BraidOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.hadoop.fs.Abortable;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;
import org.apache.hadoop.util.Progressable;
import org.jspecify.annotations.Nullable;

/**
 * The Hadoop face of a {@link BraidOutputStream}: Syncable (hflush makes the bytes visible to new
 * readers, hsync also durable), abortable, and counted in IOStatistics. Bytes written are counted
 * in FileSystem.Statistics by the FSDataOutputStream that wraps this, which also keeps the position
 * (so Parquet's footer offsets include bytes still in write-behind). Failures come as the Hadoop
 * exceptions {@link HadoopErrors} gives (a full cluster: ClusterStorageCapacityExceededException).
 *
 * <p>Thread-safety: every call is serialised on the underlying stream, so concurrent writers (as
 * HBase's WAL does with HDFS) interleave whole writes.
 */
final class BraidFsOutputStream extends OutputStream
    implements Syncable, StreamCapabilities, IOStatisticsSource, Abortable {
  private final BraidOutputStream out;
  private final @Nullable Progressable progress;
  private final IOStatisticsStore io =
      iostatisticsStore().withCounters(STREAM_WRITE_BYTES, STREAM_WRITE_EXCEPTIONS).build();

  BraidFsOutputStream(BraidOutputStream out, @Nullable Progressable progress) {
    this.out = out;
    this.progress = progress;
  }

  /** Tells the caller's task tracker that the write is alive (HDFS reports each packet). */
  private void progressed() {
    if (progress != null) {
      progress.progress();
    }
  }

  @Override
  public void write(int b) throws IOException {
    try {
      out.write(b);
    } catch (IOException e) {
      throw failed(e);
    }
    io.incrementCounter(STREAM_WRITE_BYTES);
    progressed();
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw failed(e);
    }
    io.incrementCounter(STREAM_WRITE_BYTES, len);
    progressed();
  }

  @Override
  public void flush() throws IOException {
    try {
      out.flush();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void hflush() throws IOException {
    try {
      out.hflush();
    } catch (IOException e) {
      throw failed(e);
    }
    progressed();
  }

  @Override
  public void hsync() throws IOException {
    try {
      out.hsync();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public AbortableResult abort() {
    boolean wasClosed = out.isClosed();
    out.abort();
    return new AbortableResult() {
      @Override
      public boolean alreadyClosed() {
        return wasClosed;
      }

      @Override
      public @Nullable IOException anyCleanupException() {
        return null;
      }
    };
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.HFLUSH,
          StreamCapabilities.HSYNC,
          StreamCapabilities.IOSTATISTICS,
          StreamCapabilities.ABORTABLE_STREAM ->
          true;
      default -> false;
    };
  }

  @Override
  public IOStatistics getIOStatistics() {
    return io;
  }

  @Override
  public String toString() {
    return "BraidFsOutputStream{" + out.path() + ", " + io + "}";
  }

  /**
   * Counts a failure and gives the exception Hadoop callers expect for it ({@link HadoopErrors}).
   */
  private IOException failed(IOException e) {
    io.incrementCounter(STREAM_WRITE_EXCEPTIONS);
    return HadoopErrors.translate(e, HadoopErrors.Op.PATH);
  }
}
