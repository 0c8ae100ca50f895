package io.braidfs.mds.store;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A store operation that did not happen, with the {@link Status} the MDS answers for it: {@code
 * BUSY} when the commit queue stayed full (retry later), {@code UNAVAILABLE} when the store is
 * closed or has stopped accepting writes after a failed write (retry against a restarted or another
 * MDS; a write that failed may still have reached the disk, and the retry cache settles it), {@code
 * CANCELLED} when the caller was interrupted, and {@code INTERNAL} when a stored value does not
 * decode ({@link Records}): corrupt metadata, on which the MDS must stop.
 *
 * <p>Thread-safety: immutable.
 */
public final class StoreException extends IOException implements StatusException {
  private final Status status;

  /**
   * An exception standing for {@code status}.
   *
   * @throws IllegalArgumentException if {@code status} is {@code OK}
   */
  public StoreException(Status status, String message, @Nullable Throwable cause) {
    super(message, cause);
    if (status == Status.OK) {
      throw new IllegalArgumentException("a failure cannot have status OK");
    }
    this.status = status;
  }

  @Override
  public Status status() {
    return status;
  }
}
