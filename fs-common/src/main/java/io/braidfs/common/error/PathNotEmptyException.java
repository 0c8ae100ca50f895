package io.braidfs.common.error;

import java.nio.file.DirectoryNotEmptyException;

/**
 * A non-recursive delete, or a rename onto a directory, found the directory not empty ({@link
 * Status#NOT_EMPTY}). {@link #getFile()} is null; the message names the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class PathNotEmptyException extends DirectoryNotEmptyException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  private final String message;

  PathNotEmptyException(String message) {
    // DirectoryNotEmptyException only takes a file name; keep the server's message as the message.
    super(null);
    this.message = message;
  }

  @Override
  public String getMessage() {
    return message;
  }

  @Override
  public String getReason() {
    return message;
  }

  /** Always {@link Status#NOT_EMPTY}. */
  @Override
  public Status status() {
    return Status.NOT_EMPTY;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
