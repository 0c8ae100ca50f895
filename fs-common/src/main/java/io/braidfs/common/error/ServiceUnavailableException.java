package io.braidfs.common.error;

import java.io.IOException;

/**
 * The service could not complete the call in time: {@link Status#NOT_LEADER}, {@link
 * Status#UNAVAILABLE}, {@link Status#BUSY} or {@link Status#DEADLINE_EXCEEDED}. The client retries
 * these itself (same call id, so the server's retry cache recognises a repeat) and raises this
 * exception only once its deadline has passed.
 *
 * <p>For {@link Status#DEADLINE_EXCEEDED} the operation <em>may or may not have been applied</em>:
 * the request may have reached the server and been executed after the client stopped waiting. The
 * message says so; {@link #mayHaveBeenApplied()} lets code check it. For the other statuses the
 * server refused the call before doing any work.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class ServiceUnavailableException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  /** Appended to the message of {@link Status#DEADLINE_EXCEEDED}. */
  static final String MAY_HAVE_BEEN_APPLIED = "the operation may or may not have been applied";

  private final Status status;

  ServiceUnavailableException(Status status, String message) {
    super(
        status == Status.DEADLINE_EXCEEDED
            ? message + " (" + MAY_HAVE_BEEN_APPLIED + ")"
            : message);
    this.status =
        StatusExceptions.require(
            status, Status.NOT_LEADER, Status.UNAVAILABLE, Status.BUSY, Status.DEADLINE_EXCEEDED);
  }

  /**
   * {@link Status#NOT_LEADER}, {@link Status#UNAVAILABLE}, {@link Status#BUSY} or {@link
   * Status#DEADLINE_EXCEEDED}.
   */
  @Override
  public Status status() {
    return status;
  }

  /**
   * Whether repeating the same call (same call id) may succeed; true for every status this
   * exception carries, as {@link Status#isRetriable()} says.
   */
  public boolean isRetriable() {
    return status.isRetriable();
  }

  /**
   * Whether the operation may have been applied although the call failed: true only for {@link
   * Status#DEADLINE_EXCEEDED}. A caller that retries a non-idempotent operation after this must
   * reuse the call id (or the request id) so the server can deduplicate it.
   */
  public boolean mayHaveBeenApplied() {
    return status == Status.DEADLINE_EXCEEDED;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status);
  }
}
