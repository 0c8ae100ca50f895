package io.braidfs.mds.server;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.Service;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * One metadata server: the namespace store, its journal, and the RPC endpoint serving
 * MetadataService and ClusterService on {@code braid.mds.address}.
 *
 * <pre>{@code
 * try (MdsServer mds = new MdsServer(config)) {
 *   mds.start();
 *   InetSocketAddress at = mds.address();
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MdsServer implements Service {
  private final BraidConfig config;

  /** A server configured by {@code config} (braid.mds.*); nothing runs until {@link #start()}. */
  public MdsServer(BraidConfig config) {
    this.config = config;
  }

  @Override
  public void start() throws IOException {
    throw new IOException("not yet built: " + config.get(MdsConfigKeys.ADDRESS));
  }

  /** The address the server listens on (with the real port when configured with port 0). */
  public InetSocketAddress address() {
    throw new IllegalStateException("not started");
  }

  @Override
  public void close() {}
}
