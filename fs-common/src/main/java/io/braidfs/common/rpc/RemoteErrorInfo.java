package io.braidfs.common.rpc;

import io.braidfs.proto.ErrorInfo;
import java.util.Optional;

/**
 * Carries a failed call's {@link ErrorInfo} details (leader hint, failed data server) to the
 * caller, as the cause of the status exception the call's future fails with; attached to every
 * failure the server answered, so callers can tell it from a local one. It has no stack trace: it
 * stands for the server's answer, not for anything that happened locally.
 *
 * <p>Thread-safety: immutable.
 */
public final class RemoteErrorInfo extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient ErrorInfo info;

  RemoteErrorInfo(ErrorInfo info) {
    super("error details from the server", null, false, false);
    this.info = info;
  }

  /**
   * Details made on this side: a caller that forwards or relabels a failure (a write chain naming
   * the server that failed) attaches them as the cause of the exception it raises.
   */
  public static RemoteErrorInfo local(ErrorInfo info) {
    return new RemoteErrorInfo(info);
  }

  /** The server's error details. */
  public ErrorInfo info() {
    return info;
  }

  /**
   * The details a call failure carries: present exactly when the failure is the server's answer,
   * absent when the call failed locally (no connection, a timeout, the client closed).
   */
  public static Optional<ErrorInfo> of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RemoteErrorInfo r) {
        return Optional.of(r.info);
      }
    }
    return Optional.empty();
  }
}
