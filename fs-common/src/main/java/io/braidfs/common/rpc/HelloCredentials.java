package io.braidfs.common.rpc;

import com.google.protobuf.ByteString;
import io.braidfs.proto.HelloRequest;
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
    /** The GSS-API token the Hello carries (empty for other kinds of proof). */
    byte[] token();

    /** Puts this handshake's proof into the Hello: by default {@link #token()} as its gss_token. */
    default void fill(HelloRequest.Builder hello) {
      hello.setGssToken(ByteString.copyFrom(token()));
    }

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
