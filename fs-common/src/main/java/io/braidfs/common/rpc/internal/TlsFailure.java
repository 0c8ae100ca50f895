package io.braidfs.common.rpc.internal;

import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslClosedEngineException;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Tells a TLS failure (handshake, certificate, plaintext on a TLS port) among connection errors.
 */
public final class TlsFailure {
  private TlsFailure() {}

  /** The TLS reason in {@code error}'s causes, in one line; null if it is no TLS failure. */
  public static @Nullable String reason(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SslClosedEngineException) {
        return null; // closed by either side, not refused
      }
      if (t instanceof NotSslRecordException) {
        return "not TLS (a plaintext peer on a TLS connection)";
      }
      if (t instanceof SSLException) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        return root == t
            ? String.valueOf(t.getMessage())
            : t.getMessage() + ": " + root.getMessage();
      }
    }
    return null;
  }
}
