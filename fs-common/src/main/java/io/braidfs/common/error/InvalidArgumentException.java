package io.braidfs.common.error;

import java.io.IOException;

/**
 * The server rejected an argument: {@link Status#INVALID_ARGUMENT}, {@link Status#NAME_TOO_LONG} (a
 * path component over 255 bytes or a path over 4096), {@link Status#OUT_OF_RANGE} (an offset or
 * length outside the file or chunk) or {@link Status#TOO_MANY_LINKS}.
 *
 * <p>This is an {@link IOException}, not an {@link IllegalArgumentException}: bad input often comes
 * from users (a name that is too long), and must not escape the {@code IOException} handlers of
 * code that calls Braid. {@code docs/errors.md} records this deviation from HOUSE-STYLE.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class InvalidArgumentException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  InvalidArgumentException(Status status, String message) {
    super(message);
    this.status =
        StatusExceptions.require(
            status,
            Status.INVALID_ARGUMENT,
            Status.NAME_TOO_LONG,
            Status.OUT_OF_RANGE,
            Status.TOO_MANY_LINKS);
  }

  /**
   * {@link Status#INVALID_ARGUMENT}, {@link Status#NAME_TOO_LONG}, {@link Status#OUT_OF_RANGE} or
   * {@link Status#TOO_MANY_LINKS}.
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
