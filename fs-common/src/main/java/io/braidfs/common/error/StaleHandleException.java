package io.braidfs.common.error;

import java.io.IOException;

/**
 * The handle the caller holds is no longer valid: {@link Status#STALE_HANDLE} (the file was deleted
 * or replaced), {@link Status#LEASE_EXPIRED} (the write lease lapsed, so the caller must reopen) or
 * {@link Status#STALE_VERSION} (a chunk replica is older than the version the caller expects).
 * Repeating the same call fails again; the caller must reopen or re-resolve the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class StaleHandleException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  StaleHandleException(Status status, String message) {
    super(message);
    this.status =
        StatusExceptions.require(
            status, Status.STALE_HANDLE, Status.LEASE_EXPIRED, Status.STALE_VERSION);
  }

  /** {@link Status#STALE_HANDLE}, {@link Status#LEASE_EXPIRED} or {@link Status#STALE_VERSION}. */
  @Override
  public Status status() {
    return status;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status);
  }
}
