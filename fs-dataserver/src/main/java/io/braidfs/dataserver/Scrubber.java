package io.braidfs.dataserver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.dataserver.store.ReplicaScan;
import io.braidfs.proto.BadReplica;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads every finalized replica in the background and checks each 64 KiB block against its
 * stored CRC32C, so that corruption on disk is found before a reader needs the replica (HDFS's
 * VolumeScanner). A replica with a bad block (read twice, to rule out a transient fault) or an
 * unreadable one is marked corrupt in its meta file, so reads, local reads and copies refuse it
 * from then on, and is reported to the MDS with the offset of its first bad block; the MDS copies a
 * good replica and has this one deleted.
 *
 * <p>Pace: blocks are read at {@code braid.dataserver.scrub.bandwidth} bytes per second; a pass
 * over all replicas starts {@code braid.dataserver.scrub.interval} after the last one began (at
 * once if that one took longer).
 *
 * <p>Races: each block is read and compared under the replica's lock, and only while the replica is
 * still finalized at the version, generation and length its scan began with ({@link ReplicaScan});
 * a replica written, truncated or deleted meanwhile is skipped and checked in the next pass. So a
 * rewrite is never taken for corruption, and the scrubber holds no disk thread.
 *
 * <p>Thread-safety: thread-safe; one thread of its own, {@code braid-<id>-scrub}.
 */
final class Scrubber implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Scrubber.class);
  private static final int BLOCK = Checksums.BLOCK_SIZE;

  /** How long the scrubber waits before reading block {@code block} of {@code replica}. */
  @FunctionalInterface
  interface Pace {
    /**
     * @return nanoseconds to wait first
     */
    long delayNanos(Replica replica, int block, int bytes);
  }

  private final String id;
  private final ChunkStore store;
  private final Consumer<BadReplica> report;
  private final Duration interval;
  private final Pace pace;
  private final ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong replicasScanned = new AtomicLong();
  private final AtomicLong bytesScanned = new AtomicLong();
  private final AtomicLong corruptFound = new AtomicLong();

  @GuardedBy("this")
  private boolean closed;

  @GuardedBy("this")
  private @Nullable Thread thread;

  /**
   * @param report where corrupt replicas are reported (the MDS, through {@link IncrementalReports})
   * @param pace how long to wait before each block: {@link #atRate} in service
   */
  Scrubber(String id, ChunkStore store, Consumer<BadReplica> report, Duration interval, Pace pace) {
    this.id = id;
    this.store = store;
    this.report = report;
    this.interval = interval;
    this.pace = pace;
  }

  /** Reads at most {@code bytesPerSecond}. */
  static Pace atRate(long bytesPerSecond) {
    RateLimit limit = new RateLimit(bytesPerSecond, System::nanoTime);
    return (replica, block, bytes) -> limit.reserve(bytes);
  }

  /** Starts the scrubber's thread: one pass now, then one every interval. */
  synchronized void start() {
    Thread t = new Thread(this::run, "braid-" + id + "-scrub");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    thread = t;
    t.start();
  }

  ScrubStats stats() {
    return new ScrubStats(
        passes.get(), replicasScanned.get(), bytesScanned.get(), corruptFound.get());
  }

  private void run() {
    try {
      while (!isClosed()) {
        long began = System.nanoTime();
        runPass();
        long next = began + interval.toNanos();
        if (!waitUntil(next)) {
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.error("{}: the scrubber stopped", id, e);
    }
  }

  /** One pass over every replica now in the store, on the calling thread. */
  void runPass() {
    for (Replica r : store.replicas()) {
      if (isClosed()) {
        return;
      }
      scan(r);
    }
    passes.incrementAndGet();
  }

  /** Checks one replica, if it is finalized. */
  private void scan(Replica replica) {
    int block = 0;
    try (ReplicaScan scan = replica.startScan()) {
      if (scan == null) {
        return; // being written, already corrupt, or gone
      }
      for (; block < scan.blocks(); block++) {
        int bytes = scan.blockLength(block);
        if (!waitUntil(System.nanoTime() + pace.delayNanos(replica, block, bytes))) {
          return;
        }
        ReplicaScan.Block found = checkTwice(scan, block);
        if (found == ReplicaScan.Block.CHANGED) {
          return; // checked again in the next pass
        }
        if (found == ReplicaScan.Block.BAD) {
          condemn(scan, block, "CRC32C mismatch in block " + block + ", read twice");
          return;
        }
        bytesScanned.addAndGet(bytes);
      }
      replicasScanned.incrementAndGet();
    } catch (IOException e) {
      unreadable(replica, block, e);
    }
  }

  /** A block that fails its check is read once more before it condemns the replica. */
  private ReplicaScan.Block checkTwice(ReplicaScan scan, int block) throws IOException {
    ReplicaScan.Block first;
    try {
      first = scan.check(block, buf);
    } catch (IOException e) {
      LOG.debug("{}: reading block {} of {} failed; reading it again", id, block, scan, e);
      return scan.check(block, buf);
    }
    return first == ReplicaScan.Block.BAD ? scan.check(block, buf) : first;
  }

  private void condemn(ReplicaScan scan, int block, String reason) throws IOException {
    Replica r = scan.replica();
    if (!scan.markCorrupt()) {
      return; // rewritten meanwhile: the next pass checks the new bytes
    }
    corruptFound.incrementAndGet();
    LOG.warn("{}: replica {} is corrupt ({}); reporting it to the MDS", id, r, reason);
    report.accept(
        BadReplica.newBuilder()
            .setChunk(r.key().toProto())
            .setVersion(scan.version())
            .setServerId(store.serverId())
            .setOffset((long) block * BLOCK)
            .setReason(reason)
            .build());
  }

  /**
   * A replica that could not be read twice. Its directory has been checked meanwhile: if the
   * directory failed, the replica is lost with it and reported so; otherwise the disk works and
   * this replica does not, so it is condemned.
   */
  private void unreadable(Replica replica, int block, IOException e) {
    if (store.get(replica.key()) != replica) {
      return; // deleted, or lost with its directory
    }
    try (ReplicaScan scan = replica.startScan()) {
      if (scan != null) {
        condemn(scan, block, "block " + block + " cannot be read: " + e);
      }
    } catch (IOException again) {
      LOG.warn("{}: cannot mark replica {} corrupt: {}", id, replica, again.toString());
    }
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  /** Waits until {@code deadline} (nanoTime); false if the scrubber was closed meanwhile. */
  private synchronized boolean waitUntil(long deadline) {
    boolean interrupted = false;
    try {
      long left;
      while (!closed && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      return !closed;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Stops the thread, waiting at most 10 s for the block being read. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      closed = true;
      notifyAll();
      t = thread;
    }
    if (t == null) {
      return;
    }
    try {
      t.join(10_000);
      if (t.isAlive()) {
        LOG.warn("{}: the scrubber is still reading after 10 s; abandoning it", id);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
