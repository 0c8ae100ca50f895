package io.braidfs.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The hand-over between whoever wants a running command to stop (the shutdown hook of {@link
 * Braid#main}, or a test) and the command: {@link #request()} asks, the command waits for that in
 * {@link #awaitRequest()}, closes what it runs, returns, and {@link #finished(int)} then reports
 * its exit code to anyone waiting in {@link #awaitFinished(Duration)}.
 *
 * <p>Thread-safety: thread-safe; each step happens at most once, later calls change nothing.
 */
public final class StopSignal {
  private final CountDownLatch requested = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile int exitCode = Braid.EXIT_FAILURE;

  /** Asks the running command to stop. */
  public void request() {
    requested.countDown();
  }

  /** Whether a stop was requested. */
  public boolean isRequested() {
    return requested.getCount() == 0;
  }

  /**
   * Waits until a stop is requested.
   *
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public void awaitRequest() throws InterruptedException {
    requested.await();
  }

  /**
   * Waits until a stop is requested or {@code timeout} has passed, whichever comes first: a pause
   * that Ctrl-C cuts short.
   *
   * @return whether a stop was requested
   * @throws InterruptedException if this thread is interrupted while waiting
   */
  public boolean awaitRequest(Duration timeout) throws InterruptedException {
    return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Records that the command ended with {@code code}; only the first call counts. */
  public void finished(int code) {
    if (finished.getCount() != 0) {
      exitCode = code;
      finished.countDown();
    }
  }

  /** Whether the command has ended. */
  public boolean isFinished() {
    return finished.getCount() == 0;
  }

  /**
   * Waits up to {@code timeout} for the command to end; an interrupt ends the wait early and is
   * restored.
   *
   * @return whether it ended
   */
  public boolean awaitFinished(Duration timeout) {
    try {
      return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The code the command ended with; meaningful once {@link #isFinished()}. */
  public int exitCode() {
    return exitCode;
  }
}
