package io.braidfs.common.error;

import java.nio.file.FileSystemException;

/**
 * The operation needs a file but the path is a directory ({@link Status#IS_DIRECTORY}), for example
 * an open for read or write. {@link #getFile()} is null; the message names the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class IsDirectoryException extends FileSystemException implements StatusException {
  private static final long serialVersionUID = 1L;

  IsDirectoryException(String message) {
    super(null, null, message);
  }

  /** Always {@link Status#IS_DIRECTORY}. */
  @Override
  public Status status() {
    return Status.IS_DIRECTORY;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
