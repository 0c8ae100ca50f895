package io.braidfs.common.rpc;

import io.braidfs.common.error.Status;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link FaultHook} does to one request instead of serving it as usual: never answer it,
 * serve it late, or answer it with an error at once.
 *
 * <p>Thread-safety: immutable.
 */
public sealed interface Fault {
  /** The request is read and forgotten: no handler runs and no answer is ever sent. */
  static Fault drop() {
    return Drop.INSTANCE;
  }

  /**
   * The request is served as usual once {@code by} has passed (its deadline still counts from its
   * arrival).
   *
   * @throws IllegalArgumentException if {@code by} is negative
   */
  static Fault delay(Duration by) {
    return new Delay(by);
  }

  /**
   * The request is answered with {@code status} at once; no handler runs.
   *
   * @throws IllegalArgumentException if {@code status} is OK
   */
  static Fault fail(Status status, String message) {
    return new Fail(status, message);
  }

  /** See {@link #drop()}. */
  enum Drop implements Fault {
    INSTANCE
  }

  /** See {@link #delay(Duration)}. */
  record Delay(Duration by) implements Fault {
    public Delay {
      Objects.requireNonNull(by, "by");
      if (by.isNegative()) {
        throw new IllegalArgumentException("a delay cannot be negative: " + by);
      }
    }
  }

  /** See {@link #fail(Status, String)}. */
  record Fail(Status status, String message) implements Fault {
    public Fail {
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(message, "message");
      if (status.isOk()) {
        throw new IllegalArgumentException("a failure needs a non-OK status");
      }
    }
  }
}
