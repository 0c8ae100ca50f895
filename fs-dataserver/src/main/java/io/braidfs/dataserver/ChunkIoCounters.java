package io.braidfs.dataserver;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a data server's clients read and wrote since it was made: ReadChunk and WriteChunk calls
 * answered from its disks and their bytes (a write counts the bytes this replica stored, whatever
 * the rest of the chain did). Short-circuit reads, which clients make from the files themselves,
 * and repair copies are not counted. Read by the metrics endpoint.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ChunkIoCounters {
  private final LongAdder reads = new LongAdder();
  private final LongAdder readBytes = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final LongAdder writtenBytes = new LongAdder();

  /** Counts a read that answered with {@code bytes} of data. */
  void read(long bytes) {
    reads.increment();
    readBytes.add(bytes);
  }

  /** Counts a write that stored {@code bytes} in the local replica. */
  void wrote(long bytes) {
    writes.increment();
    writtenBytes.add(bytes);
  }

  /** ReadChunk calls answered with data (or an empty range). */
  public long reads() {
    return reads.sum();
  }

  /** Bytes those reads answered with. */
  public long readBytes() {
    return readBytes.sum();
  }

  /** WriteChunk calls whose data this replica stored. */
  public long writes() {
    return writes.sum();
  }

  /** Bytes those writes stored. */
  public long writtenBytes() {
    return writtenBytes.sum();
  }
}
