package io.braidfs.common.error;

import java.nio.file.FileAlreadyExistsException;

/**
 * The target path already exists ({@link Status#ALREADY_EXISTS}): an exclusive create, a mkdir or a
 * rename onto an existing entry. {@link #getFile()} is null; the message names the path.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class PathExistsException extends FileAlreadyExistsException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  PathExistsException(String message) {
    super(null, null, message);
  }

  /** Always {@link Status#ALREADY_EXISTS}. */
  @Override
  public Status status() {
    return Status.ALREADY_EXISTS;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
