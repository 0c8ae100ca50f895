package io.braidfs.common.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * What a client proves its identity with in each connection's Hello, and how it checks the server's
 * proof in the answer (see {@code io.braidfs.common.security}). A client with credentials waits for
 * the Hello's answer before it sends calls on the connection.
 *
 * <p>Thread-safety: implementations must be thread-safe.
 */
public interface HelloCredentials {
  /** One connection's handshake. */
  interface Handshake {
    /** The token the Hello carries. */
    byte[] token();

    /**
     * Checks the server's reply token.
     *
     * @throws IOException carrying {@code NOT_AUTHENTICATED} if the server did not prove itself
     */
    void verify(byte[] reply) throws IOException;
  }

  /**
   * Starts the handshake with {@code server}, on the thread that opens the connection (it may ask a
   * key distribution center for a ticket, once per server and ticket lifetime).
   *
   * @throws IOException carrying {@code NOT_AUTHENTICATED} if this client has no usable credential
   */
  Handshake begin(InetSocketAddress server) throws IOException;
}
