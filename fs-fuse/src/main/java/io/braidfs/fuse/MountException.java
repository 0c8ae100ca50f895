package io.braidfs.fuse;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A mount could not be made; the message is for a person (what is wrong and what to do).
 *
 * <p>Thread-safety: immutable.
 */
public final class MountException extends IOException {
  private static final long serialVersionUID = 1L;

  public MountException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
