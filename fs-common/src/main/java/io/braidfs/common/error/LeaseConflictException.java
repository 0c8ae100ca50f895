package io.braidfs.common.error;

import java.io.IOException;

/**
 * Another client holds the write lease on this file ({@link Status#LEASE_CONFLICT}), as HDFS's
 * {@code AlreadyBeingCreatedException}. The call may succeed later, once the other writer closes
 * the file or its lease expires, but it is not retried automatically.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class LeaseConflictException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  LeaseConflictException(String message) {
    super(message);
  }

  /** Always {@link Status#LEASE_CONFLICT}. */
  @Override
  public Status status() {
    return Status.LEASE_CONFLICT;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
