package io.braidfs.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Polling waits for tests, in place of sleeps: a condition is checked until it holds or a bound
 * passes, and the failure names what was awaited. Failures are plain {@link AssertionError}s (no
 * AssertJ at run time), so benchmarks can use the bench without test libraries.
 *
 * <p>Thread-safety: stateless.
 */
public final class Await {
  private Await() {}

  /** Waits until {@code condition} holds, failing after {@code timeout}. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(String.format("timed out after %s waiting for %s", timeout, what));
      }
      LockSupport.parkNanos(5_000_000L);
      if (Thread.interrupted()) {
        throw new AssertionError(String.format("interrupted waiting for %s", what));
      }
    }
  }

  /** Waits until no live thread's name starts with {@code braid-}. */
  public static void noBraidThreads(Duration timeout) {
    until(
        "all braid-* threads to end (alive: " + braidThreads() + ")",
        timeout,
        () -> braidThreads().isEmpty());
  }

  /** The names of live threads that belong to Braid. */
  public static java.util.List<String> braidThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("braid-"))
        .sorted()
        .toList();
  }
}
