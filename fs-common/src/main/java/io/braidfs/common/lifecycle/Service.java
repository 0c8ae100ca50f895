package io.braidfs.common.lifecycle;

import java.io.IOException;

/**
 * A long-lived component: constructed without I/O, started once, closed once.
 *
 * <p>{@link #start()} binds ports and starts threads; {@link #close()} is idempotent, releases
 * resources in reverse order of acquisition and bounds every wait, so a close never hangs.
 *
 * <p>Thread-safety: implementations say so; start and close may be called from any thread.
 */
public interface Service extends AutoCloseable {
  /**
   * Starts the component.
   *
   * @throws IOException if a resource (a port, a file) cannot be acquired; the component is then
   *     closed and must not be started again
   * @throws IllegalStateException if already started or closed
   */
  void start() throws IOException;

  /** Stops the component and releases everything it holds. Never throws; safe to call twice. */
  @Override
  void close();
}
