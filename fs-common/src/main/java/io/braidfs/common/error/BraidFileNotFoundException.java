package io.braidfs.common.error;

import java.io.FileNotFoundException;

/**
 * The path does not exist ({@link Status#NOT_FOUND}). A {@link FileNotFoundException}, as the
 * Hadoop {@code FileSystem} specification and plain Java callers expect.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class BraidFileNotFoundException extends FileNotFoundException
    implements StatusException {
  private static final long serialVersionUID = 1L;

  BraidFileNotFoundException(String message) {
    super(message);
  }

  /** Always {@link Status#NOT_FOUND}. */
  @Override
  public Status status() {
    return Status.NOT_FOUND;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
