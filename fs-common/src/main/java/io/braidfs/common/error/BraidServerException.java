package io.braidfs.common.error;

import java.io.IOException;

/**
 * The server failed, or the two sides could not understand each other: {@link Status#INTERNAL} (an
 * unexpected exception on the server, logged there once with the call id), {@link
 * Status#CHECKSUM_MISMATCH}, {@link Status#MALFORMED_FRAME}, {@link Status#FRAME_TOO_LARGE}, {@link
 * Status#UNKNOWN_METHOD} or {@link Status#UNSUPPORTED_VERSION}. None of these is retriable with the
 * same call; the message is the server's, without its stack trace.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class BraidServerException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  BraidServerException(Status status, String message) {
    super(message);
    this.status =
        StatusExceptions.require(
            status,
            Status.CHECKSUM_MISMATCH,
            Status.MALFORMED_FRAME,
            Status.FRAME_TOO_LARGE,
            Status.UNKNOWN_METHOD,
            Status.UNSUPPORTED_VERSION,
            Status.INTERNAL);
  }

  /**
   * {@link Status#INTERNAL}, {@link Status#CHECKSUM_MISMATCH}, {@link Status#MALFORMED_FRAME},
   * {@link Status#FRAME_TOO_LARGE}, {@link Status#UNKNOWN_METHOD} or {@link
   * Status#UNSUPPORTED_VERSION}.
   */
  @Override
  public Status status() {
    return status;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status);
  }
}
