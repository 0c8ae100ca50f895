package io.braidfs.common.error;

import java.nio.file.NotDirectoryException;

/**
 * A path component that must be a directory is not one ({@link Status#NOT_DIRECTORY}), for example
 * the parent of a create, or the argument of a list. {@link #getFile()} is null; the message names
 * the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class PathNotDirectoryException extends NotDirectoryException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  private final String message;

  PathNotDirectoryException(String message) {
    // NotDirectoryException only takes a file name; keep the server's message as the message.
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

  /** Always {@link Status#NOT_DIRECTORY}. */
  @Override
  public Status status() {
    return Status.NOT_DIRECTORY;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
