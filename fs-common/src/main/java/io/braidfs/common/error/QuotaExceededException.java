package io.braidfs.common.error;

import java.io.IOException;

/**
 * The write or create was refused for lack of space: {@link Status#NO_SPACE} (the cluster or the
 * chosen dataservers are full) or {@link Status#QUOTA_EXCEEDED} (a namespace or space quota on a
 * directory). Repeating the call will fail the same way until space is freed.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class QuotaExceededException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  QuotaExceededException(Status status, String message) {
    super(message);
    this.status = StatusExceptions.require(status, Status.NO_SPACE, Status.QUOTA_EXCEEDED);
  }

  /** {@link Status#NO_SPACE} or {@link Status#QUOTA_EXCEEDED}. */
  @Override
  public Status status() {
    return status;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status);
  }
}
