package io.braidfs.client;

import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.Attributes;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Writes one file with write-behind: each write is copied into the {@link StripedWriter}'s buffer
 * and leaves as whole stripe-unit transfers, many in flight, so a small write costs a copy, not a
 * round trip; a write waits only when the stream's write-behind budget is in flight. A failure of
 * data already handed over surfaces on the next write, {@link #hflush()}, {@link #hsync()} or
 * {@link #close()}, and is never dropped: once failed, the stream fails every call with it.
 *
 * <p>{@link #close()} commits the file's length and releases the write lease; until then readers
 * see the length of the last {@link #hflush()}.
 *
 * <p>Thread-safety: thread-safe; calls are serialised on the stream's monitor.
 */
public final class BraidOutputStream extends OutputStream {
  private final BraidClient client;
  private final String path;
  private final long inodeId;
  private final StripedWriter writer;
  private long pos;
  private @Nullable IOException failure;
  private volatile @Nullable IOException leaseLost;
  private boolean closed;
  private @Nullable FileAttributes created;

  BraidOutputStream(
      BraidClient client, String path, long inodeId, StripedWriter writer, long position) {
    this.client = client;
    this.path = path;
    this.inodeId = inodeId;
    this.writer = writer;
    this.pos = position;
  }

  public String path() {
    return path;
  }

  public long inodeId() {
    return inodeId;
  }

  /**
   * The attributes the MDS answered when this stream's file was created (FUSE answers the stat that
   * follows a create with them), or null if the stream opened an existing file.
   */
  public @Nullable FileAttributes createdAttributes() {
    return created;
  }

  /**
   * The write capability token this stream holds: proof, for as long as it is valid, that its
   * holder opened the file for writing ({@link BraidClient#truncate(String, long, WriteToken)}).
   */
  public synchronized WriteToken writeToken() {
    return new WriteToken(writer.token());
  }

  void created(FileAttributes attributes) {
    created = attributes;
  }

  /** Where the next {@link #write(byte[], int, int)} goes: the bytes written so far. */
  public synchronized long getPos() {
    return pos;
  }

  @Override
  public synchronized void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    writeAt(pos, Unpooled.wrappedBuffer(b, off, len));
    pos += len;
  }

  /** Writes {@code src}'s remaining bytes at the position, which advances. */
  public synchronized void write(ByteBuffer src) throws IOException {
    int n = src.remaining();
    writeAt(pos, Unpooled.wrappedBuffer(src.duplicate()));
    src.position(src.position() + n);
    pos += n;
  }

  /**
   * Writes {@code src}'s remaining bytes at file offset {@code position} (pwrite: random writes, as
   * FUSE sends them); the stream's position does not move. Bytes between the end of the file and
   * {@code position} read as zeros.
   */
  public synchronized void write(long position, ByteBuffer src) throws IOException {
    if (position < 0) {
      throw new IllegalArgumentException(path + ": negative write offset " + position);
    }
    int n = src.remaining();
    writeAt(position, Unpooled.wrappedBuffer(src.duplicate()));
    src.position(src.position() + n);
  }

  private void writeAt(long position, io.netty.buffer.ByteBuf data) throws IOException {
    checkUsable();
    if (!data.isReadable()) {
      return;
    }
    try {
      writer.write(position, data);
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** Hands over buffered bytes; does not wait for them (use {@link #hflush()} for that). */
  @Override
  public synchronized void flush() throws IOException {
    checkUsable();
  }

  /**
   * Waits until every byte written is acknowledged by every replica and publishes the new length to
   * the MDS: new readers see it (Hadoop hflush).
   */
  public synchronized void hflush() throws IOException {
    checkUsable();
    try {
      writer.flush();
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** {@link #hflush()}, with every replica forcing the data to disk first (Hadoop hsync). */
  public synchronized void hsync() throws IOException {
    checkUsable();
    try {
      writer.sync();
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** Whether {@link #close()} or {@link #abort()} has been called. */
  public synchronized boolean isClosed() {
    return closed;
  }

  /** The file's length as written so far (its highest written byte + 1). */
  public synchronized long length() {
    return writer.length();
  }

  /**
   * Completes the file: every byte on disk on every replica, the length and chunk versions
   * committed, the lease released. Closing again does nothing.
   *
   * @throws IOException the first failure of this stream, or of the commit; the file then keeps the
   *     length of the last successful {@link #hflush()}
   */
  @Override
  public synchronized void close() throws IOException {
    complete(null);
  }

  /**
   * Completes the file as {@link #close()} does, with the final commit sent by {@code committer}
   * when not null (concat commits inside its own MDS call); a stream closed already does nothing.
   *
   * @return the file's attributes after the commit; null if the stream was closed already
   */
  synchronized @Nullable Attributes complete(
      StripedWriter.@Nullable Committer<Attributes> committer) throws IOException {
    if (closed) {
      return null;
    }
    closed = true;
    try {
      IOException lost = leaseLost;
      if (failure == null && lost != null) {
        failure = lost;
      }
      if (failure != null) {
        throw again(failure);
      }
      Attributes after;
      try {
        after = committer == null ? writer.complete().getAttributes() : writer.complete(committer);
      } catch (IOException e) {
        failure = e;
        throw e;
      }
      client.committed(path, after);
      return after;
    } finally {
      writer.close();
      client.writerClosed(this);
    }
  }

  /**
   * Gives the stream up without committing: buffered bytes are dropped, the file keeps the length
   * of its last {@link #hflush()} (0 if none), and the write lease is left to expire (or to {@link
   * BraidClient#recoverLease}). For a copy that failed or was cancelled; closing afterwards does
   * nothing.
   */
  public synchronized void abort() {
    if (!closed) {
      closed = true;
      writer.close();
      client.writerClosed(this);
    }
  }

  /** The MDS says this client lost the file's lease: every later call fails. */
  void leaseLost(IOException why) {
    leaseLost = why;
  }

  /**
   * The stream's failure for a later call: a new exception with the same status and the original as
   * its cause (rethrowing the same instance from close() would break try-with-resources, which
   * cannot add an exception to itself as suppressed).
   */
  private IOException again(IOException original) {
    return StatusExceptions.toIOException(
        StatusExceptions.statusOf(original),
        path + ": the stream failed earlier: " + original.getMessage(),
        original);
  }

  private IOException fail(IOException e) {
    if (failure == null) {
      failure = e;
    }
    return e;
  }

  private void checkUsable() throws IOException {
    if (closed) {
      throw new IOException(path + ": stream is closed");
    }
    if (failure != null) {
      throw again(failure);
    }
    IOException lost = leaseLost;
    if (lost != null) {
      failure = lost;
      throw lost;
    }
  }
}
