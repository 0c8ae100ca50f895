package io.braidfs.common.rpc;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslHandler;

/**
 * TLS for an RPC connection (see {@code io.braidfs.common.security.Tls}): a new handler per
 * connection, first in its pipeline, from whatever certificates are current.
 *
 * <p>Thread-safety: implementations must be thread-safe; called on event loops.
 */
public interface ChannelTls {
  /** The handler of a connection a server accepted. */
  SslHandler serverHandler(ByteBufAllocator alloc);

  /**
   * The handler of a client's connection to {@code host}:{@code port} (checked against its
   * certificate).
   */
  SslHandler clientHandler(ByteBufAllocator alloc, String host, int port);
}
