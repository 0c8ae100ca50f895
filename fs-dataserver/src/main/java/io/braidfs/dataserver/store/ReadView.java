package io.braidfs.dataserver.store;

import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;

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
