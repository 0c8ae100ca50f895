package io.braidfs.dataserver.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import org.jspecify.annotations.Nullable;

/**
 * A consistent view of a replica's bytes for one read, widened to whole 64 KiB blocks: the range,
 * its stored block CRCs, and an open channel on the data file (so the bytes stay readable even if
 * the replica is deleted meanwhile).
 *
 * <p>Ownership: the view owns {@code channel}. Exactly one of {@link #region()} (which hands the
 * channel to the returned region, released by whoever sends it) or {@link #close()} must be called.
 *
 * <p>Thread-safety: not thread-safe.
 *
 * @param firstBlockOffset the chunk offset of the first byte, a multiple of 64 KiB
 * @param length the bytes of the range (0 when the read starts at the replica's end)
 * @param blockCrcs the stored CRC32C of each 64 KiB block of the range; the last may be short
 * @param version the replica's version when read
 * @param chunkLength the replica's length when read
 * @param channel the data file, open for reading
 * @param done run once when the range was sent or the view closed (the replica delays cutting its
 *     file until then, so a zero-copy send never finds the file shorter than the range)
 */
public record ReadView(
    long firstBlockOffset,
    long length,
    int[] blockCrcs,
    long version,
    long chunkLength,
    FileChannel channel,
    Runnable done)
    implements AutoCloseable {

  /** The range as a zero-copy region; the region now owns the channel. */
  public FileRegion region() {
    // A subclass of DefaultFileRegion, so the epoll transport still sends it with sendfile.
    return new DefaultFileRegion(channel, firstBlockOffset, length) {
      @Override
      protected void deallocate() {
        try {
          super.deallocate();
        } finally {
          done.run();
        }
      }
    };
  }

  /**
   * The range read into a buffer from {@code alloc}, for a connection where a zero-copy region
   * cannot go (TLS); closes the view. On a disk thread: it reads the file.
   */
  public ByteBuf read(ByteBufAllocator alloc) throws IOException {
    @Nullable ByteBuf buf = null;
    try (ReadView self = this) {
      // Allocated inside: a failed allocation still closes the view (and lets the replica shrink).
      buf = alloc.directBuffer(Math.toIntExact(length));
      long at = firstBlockOffset;
      while (buf.isWritable()) {
        int n = buf.writeBytes(channel, at, buf.writableBytes());
        if (n < 0) {
          throw new java.io.EOFException(
              "replica file ends at " + at + ", before " + (firstBlockOffset + length));
        }
        at += n;
      }
      return buf;
    } catch (IOException | RuntimeException | Error e) {
      if (buf != null) {
        buf.release();
      }
      throw e;
    }
  }

  /** Closes the channel without sending anything. */
  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      done.run();
    }
  }
}
