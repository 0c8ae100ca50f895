package io.braidfs.bench.driver;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs {@code n} concurrent clients, each a thread doing its own sequence of operations, and times
 * them together: from the moment all are released at once to the moment the last one finishes.
 *
 * <p>Thread-safety: one {@link #time} at a time.
 */
final class Parallel implements AutoCloseable {
  /** One operation of one client. */
  interface Op {
    void run(int client, int i) throws IOException;
  }

  private final ExecutorService threads = Executors.newCachedThreadPool();

  /**
   * Runs {@code op(c, i)} for {@code i} in 0..{@code perClient}-1 on each client {@code c} in
   * 0..{@code clients}-1; the elapsed nanoseconds.
   *
   * @throws IOException the first failure of any client, naming it
   */
  long time(int clients, int perClient, Op op) throws IOException, InterruptedException {
    CountDownLatch ready = new CountDownLatch(clients);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      done.add(
          threads.submit(
              () -> {
                ready.countDown();
                go.await();
                for (int i = 0; i < perClient; i++) {
                  op.run(client, i);
                }
                return null;
              }));
    }
    ready.await();
    long t0 = System.nanoTime();
    go.countDown();
    IOException failed = null;
    for (int c = 0; c < clients; c++) {
      try {
        done.get(c).get();
      } catch (ExecutionException e) {
        if (failed == null) {
          failed = new IOException("client " + c + " of " + clients + ": " + e.getCause(), e);
        }
      }
    }
    long nanos = System.nanoTime() - t0;
    if (failed != null) {
      throw failed;
    }
    return nanos;
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
