package io.braidfs.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.client.internal.data.ReadAhead;
import io.braidfs.client.internal.data.StripedReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Reads one file: sequential reads through a {@link ReadAhead} window, positional reads ({@link
 * #read(long, byte[], int, int)}) straight from the data servers without touching the window or the
 * position. The file's length is the one seen at open; a file still being written is followed as it
 * grows when a read reaches the end.
 *
 * <p>Thread-safety: the stream's position and window are guarded by its monitor; positional reads
 * may run concurrently with each other and with sequential reads.
 */
public final class BraidInputStream extends InputStream {
  private final BraidClient client;
  private final String path;
  private final long inodeId;
  private final StripedReader reader;

  @GuardedBy("this")
  private final ReadAhead readAhead;

  @GuardedBy("this")
  private long pos;

  /** Set under the monitor; volatile because positional reads check it without the monitor. */
  private volatile boolean closed;

  BraidInputStream(
      BraidClient client, String path, long inodeId, StripedReader reader, ReadAhead readAhead) {
    this.client = client;
    this.path = path;
    this.inodeId = inodeId;
    this.reader = reader;
    this.readAhead = readAhead;
  }

  /** The file's path as opened. */
  public String path() {
    return path;
  }

  /** The file's inode id. */
  public long inodeId() {
    return inodeId;
  }

  /**
   * The file's length as last seen.
   *
   * @throws IOException if it had to be asked from the MDS and could not be
   */
  public long length() throws IOException {
    return reader.length();
  }

  @Override
  public synchronized int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    return read(Unpooled.wrappedBuffer(b, off, len).clear(), len);
  }

  /**
   * Reads into {@code dst} from its position up to its limit (ByteBufferReadable).
   *
   * @return the bytes read, or -1 at the end of the file
   */
  public synchronized int read(ByteBuffer dst) throws IOException {
    int len = dst.remaining();
    if (len == 0) {
      return 0;
    }
    int n = read(Unpooled.wrappedBuffer(dst.duplicate()).clear(), len);
    if (n > 0) {
      dst.position(dst.position() + n);
    }
    return n;
  }

  @GuardedBy("this")
  private int read(ByteBuf dst, int len) throws IOException {
    checkOpen();
    long length = reader.length();
    if (pos >= length) {
      // At the known end: a growing file may have more; the reader asks the MDS again.
      int n = reader.read(pos, dst, len);
      if (n > 0) {
        pos += n;
      }
      return n;
    }
    int n = readAhead.read(pos, dst, (int) Math.min(len, length - pos), length);
    if (n > 0) {
      pos += n;
    }
    return n;
  }

  /**
   * Reads up to {@code len} bytes at {@code position} without moving the stream's position or its
   * read-ahead window (PositionedReadable).
   *
   * @return the bytes read, or -1 if {@code position} is at or past the end of the file
   */
  public int read(long position, byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    if (position < 0) {
      throw new EOFException(path + ": negative read position " + position);
    }
    if (len == 0) {
      return 0;
    }
    return reader.read(position, Unpooled.wrappedBuffer(b, off, len).clear(), len);
  }

  /**
   * Reads exactly {@code len} bytes at {@code position} (PositionedReadable).
   *
   * @throws EOFException if the file ends first
   */
  public void readFully(long position, byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    int done = 0;
    while (done < len) {
      int n = read(position + done, b, off + done, len - done);
      if (n < 0) {
        throw new EOFException(
            path
                + ": end of file at "
                + (position + done)
                + " reading "
                + len
                + " bytes at "
                + position);
      }
      done += n;
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position} into {@code dst}, advancing its
   * position, without moving the stream's position or window (ByteBufferPositionedReadable).
   *
   * @return the bytes read, or -1 if {@code position} is at or past the end of the file
   */
  public int read(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new EOFException(path + ": negative read position " + position);
    }
    int len = dst.remaining();
    if (len == 0) {
      return 0;
    }
    int n = reader.read(position, Unpooled.wrappedBuffer(dst.duplicate()).clear(), len);
    if (n > 0) {
      dst.position(dst.position() + n);
    }
    return n;
  }

  /**
   * Fills {@code dst} from {@code position} (ByteBufferPositionedReadable).
   *
   * @throws EOFException if the file ends first; {@code dst} then holds what was read
   */
  public void readFully(long position, ByteBuffer dst) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = read(at, dst);
      if (n < 0) {
        throw new EOFException(
            path + ": end of file at " + at + " reading " + dst.remaining() + " more bytes");
      }
      at += n;
    }
  }

  /**
   * Moves the position. A target inside the read-ahead window keeps the window.
   *
   * @throws EOFException if {@code position} is negative or past the end of the file
   */
  public synchronized void seek(long position) throws IOException {
    checkOpen();
    if (position < 0) {
      throw new EOFException(path + ": cannot seek to negative offset " + position);
    }
    if (position > reader.length()) {
      throw new EOFException(
          path
              + ": cannot seek to "
              + position
              + " past the end of the file ("
              + reader.length()
              + ")");
    }
    pos = position;
  }

  public synchronized long getPos() {
    return pos;
  }

  @Override
  public synchronized long skip(long n) throws IOException {
    checkOpen();
    if (n <= 0) {
      return 0;
    }
    long to = Math.min(reader.length(), pos + n);
    long skipped = Math.max(0, to - pos);
    pos += skipped;
    return skipped;
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, reader.length() - pos));
  }

  /** This stream's read counters so far. */
  public synchronized StreamStats stats() {
    return readAhead.stats();
  }

  /**
   * Overrides the read-ahead window for this stream (Hadoop CanSetReadahead): null returns to the
   * configured behaviour, 0 turns read-ahead off, a positive value fixes the window at that many
   * bytes.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public synchronized void setReadahead(@Nullable Long bytes) {
    if (bytes != null && bytes < 0) {
      throw new IllegalArgumentException(path + ": negative read-ahead " + bytes);
    }
    readAhead.override(bytes);
  }

  /**
   * Forgets everything the stream cached of the file: its read-ahead window, the length and the
   * chunk locations (which may still call a range a hole). The next read asks the MDS. For a file
   * rewritten in place since this stream read it (the FUSE mount calls it after its own writes).
   */
  public synchronized void invalidate() {
    readAhead.close();
    reader.invalidate();
  }

  /** Drops the read-ahead window and its memory (Hadoop CanUnbuffer); reads go on afterwards. */
  public synchronized void unbuffer() {
    readAhead.close();
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      readAhead.close();
      client.readerClosed(this);
    }
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(path + ": stream is closed");
    }
  }
}
