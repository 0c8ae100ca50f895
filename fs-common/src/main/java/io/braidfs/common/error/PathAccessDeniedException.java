package io.braidfs.common.error;

import java.nio.file.AccessDeniedException;

/**
 * The caller may not do this: {@link Status#PERMISSION_DENIED} (the permission check failed),
 * {@link Status#INVALID_TOKEN} (the capability token is missing, forged, expired or out of scope)
 * or {@link Status#NOT_AUTHENTICATED} (a request arrived before the connection's hello). {@link
 * #status()} tells them apart; {@link #getFile()} is null and the message names the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class PathAccessDeniedException extends AccessDeniedException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  private final Status status;

  PathAccessDeniedException(Status status, String message) {
    super(null, null, message);
    this.status =
        StatusExceptions.require(
            status, Status.PERMISSION_DENIED, Status.INVALID_TOKEN, Status.NOT_AUTHENTICATED);
  }

  /**
   * {@link Status#PERMISSION_DENIED}, {@link Status#INVALID_TOKEN} or {@link
   * Status#NOT_AUTHENTICATED}.
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
