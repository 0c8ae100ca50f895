package io.braidfs.dataserver;

import io.braidfs.dataserver.store.ChunkKey;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that do disk work, one queue each. Every request for a chunk runs on the thread its
 * key hashes to, so the requests of one chunk run one at a time in the order the event loop
 * received them: overlapping writes land in the writer's order, and a chain forwards them
 * downstream in that order too. Different chunks proceed in parallel.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ChunkWorkers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkWorkers.class);

  private final String id;
  private final ExecutorService[] threads;

  ChunkWorkers(String id, int count) {
    this.id = id;
    this.threads = new ExecutorService[count];
    for (int i = 0; i < count; i++) {
      String name = "braid-" + id + "-disk-" + i;
      threads[i] =
          new ThreadPoolExecutor(
              1,
              1,
              0,
              TimeUnit.MILLISECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
              });
    }
  }

  /** Runs {@code work} on {@code key}'s thread, after the work queued there before it. */
  void execute(ChunkKey key, Runnable work) {
    int h = Long.hashCode(key.inodeId() * 0x9E3779B97F4A7C15L + key.chunkIndex());
    threads[Math.floorMod(h ^ (h >>> 16), threads.length)].execute(work);
  }

  @Override
  public void close() {
    for (ExecutorService t : threads) {
      t.shutdown();
    }
    for (ExecutorService t : threads) {
      try {
        if (!t.awaitTermination(10, TimeUnit.SECONDS)) {
          LOG.warn("{}: disk threads still busy after 10 s; abandoning them", id);
          t.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        t.shutdownNow();
      }
    }
  }
}
