package io.braidfs.common.error;

import java.io.InterruptedIOException;

/**
 * The call was cancelled before it completed ({@link Status#CANCELLED}), by the caller or because
 * its thread was interrupted. Like any {@link InterruptedIOException}, the operation may or may not
 * have been applied. Code that catches it because of a thread interrupt restores the interrupt
 * flag.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class OperationCancelledException extends InterruptedIOException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  OperationCancelledException(String message) {
    super(message);
  }

  /** Always {@link Status#CANCELLED}. */
  @Override
  public Status status() {
    return Status.CANCELLED;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
