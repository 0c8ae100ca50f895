package io.braidfs.common.error;

import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one place that maps a {@link Status} to a Java exception, and an exception back to a status.
 *
 * <p>{@link #toIOException(Status, String)} is an exhaustive {@code switch} over {@link Status}
 * with no default branch, so adding a status fails compilation here until it is given an exception.
 * Every exception it returns implements {@link StatusException} (so the FUSE and Hadoop boundaries
 * can recover the exact status with {@link #statusOf(Throwable)}) and extends the standard JDK type
 * a plain Java caller would catch, such as {@link java.io.FileNotFoundException} or {@link
 * java.nio.file.AccessDeniedException}. The table is in {@code docs/errors.md}.
 *
 * <p>Messages: the exception's {@link Throwable#getMessage() message} is the server's message,
 * which names the operation and the path; {@link Throwable#toString()} adds the status name, as in
 * {@code io.braidfs.common.error.PathExistsException [ALREADY_EXISTS]: create /a/b: file exists}.
 *
 * <p>Thread-safety: stateless; safe for concurrent use.
 */
public final class StatusExceptions {
  private StatusExceptions() {}

  /**
   * The exception for a non-OK status.
   *
   * @param status the status a server (or the client itself, for timeouts and lost connections)
   *     reported
   * @param message the server's message, naming the operation and the path
   * @return a new exception implementing {@link StatusException} whose {@code status()} is {@code
   *     status}; the caller throws it
   * @throws IllegalArgumentException if {@code status} is {@link Status#OK}, which is not an error
   */
  public static IOException toIOException(Status status, String message) {
    return toIOException(status, message, null);
  }

  /**
   * The exception for a non-OK status, with a local cause (for example the {@code ConnectException}
   * behind a client-side {@link Status#UNAVAILABLE}).
   *
   * @param status the status to raise
   * @param message the server's message, naming the operation and the path
   * @param cause the local cause, or {@code null}; never a server stack trace, which is not sent
   * @return a new exception implementing {@link StatusException} whose {@code status()} is {@code
   *     status}
   * @throws IllegalArgumentException if {@code status} is {@link Status#OK}
   */
  public static IOException toIOException(
      Status status, String message, @Nullable Throwable cause) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(message, "message");
    IOException e =
        switch (status) {
          case OK ->
              throw new IllegalArgumentException(
                  "OK is not an error; there is no exception for it");
          case NOT_FOUND -> new BraidFileNotFoundException(message);
          case ALREADY_EXISTS -> new PathExistsException(message);
          case NOT_DIRECTORY -> new PathNotDirectoryException(message);
          case IS_DIRECTORY -> new IsDirectoryException(message);
          case NOT_EMPTY -> new PathNotEmptyException(message);
          case PERMISSION_DENIED, INVALID_TOKEN, NOT_AUTHENTICATED ->
              new PathAccessDeniedException(status, message);
          case INVALID_ARGUMENT, NAME_TOO_LONG, OUT_OF_RANGE, TOO_MANY_LINKS ->
              new InvalidArgumentException(status, message);
          case NO_SPACE, QUOTA_EXCEEDED -> new QuotaExceededException(status, message);
          case NOT_LEADER, UNAVAILABLE, BUSY, DEADLINE_EXCEEDED ->
              new ServiceUnavailableException(status, message);
          case STALE_HANDLE, LEASE_EXPIRED, STALE_VERSION ->
              new StaleHandleException(status, message);
          case LEASE_CONFLICT -> new LeaseConflictException(message);
          case UNSUPPORTED -> new OperationUnsupportedException(message);
          case CANCELLED -> new OperationCancelledException(message);
          case CHECKSUM_MISMATCH,
              MALFORMED_FRAME,
              FRAME_TOO_LARGE,
              UNKNOWN_METHOD,
              UNSUPPORTED_VERSION,
              INTERNAL ->
              new BraidServerException(status, message);
        };
    if (cause != null) {
      // Several JDK bases (FileNotFoundException, FileSystemException) take no cause argument.
      e.initCause(cause);
    }
    return e;
  }

  /**
   * The status a throwable stands for: its {@link StatusException#status()} if it is a {@link
   * StatusException}, otherwise {@link Status#INTERNAL}. Causes are not inspected: a wrapped status
   * exception is an unexpected failure of whatever wrapped it.
   *
   * @throws NullPointerException if {@code t} is null
   */
  public static Status statusOf(Throwable t) {
    Objects.requireNonNull(t, "t");
    return t instanceof StatusException se ? se.status() : Status.INTERNAL;
  }

  /** The shared {@code toString()} of the status exceptions: class, status name and message. */
  static String describe(Throwable t, Status status) {
    String message = t.getLocalizedMessage();
    String head = t.getClass().getName() + " [" + status.name() + "]";
    return message == null ? head : head + ": " + message;
  }

  /** Checks, in the exception constructors, that the mapping above passed a status they cover. */
  static Status require(Status status, Status... allowed) {
    for (Status s : allowed) {
      if (s == status) {
        return status;
      }
    }
    throw new IllegalArgumentException("status " + status + " is not mapped to this exception");
  }
}
