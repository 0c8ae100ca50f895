package io.braidfs.common.error;

import java.io.IOException;

/**
 * The server does not support this operation or option ({@link Status#UNSUPPORTED}). An {@link
 * IOException} rather than {@link UnsupportedOperationException}, so that every Braid failure is an
 * {@code IOException}; the Hadoop boundary converts it to {@code UnsupportedOperationException}
 * where the {@code FileSystem} specification asks for one.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class OperationUnsupportedException extends IOException implements StatusException {
  private static final long serialVersionUID = 1L;

  OperationUnsupportedException(String message) {
    super(message);
  }

  /** Always {@link Status#UNSUPPORTED}. */
  @Override
  public Status status() {
    return Status.UNSUPPORTED;
  }

  @Override
  public String toString() {
    return StatusExceptions.describe(this, status());
  }
}
