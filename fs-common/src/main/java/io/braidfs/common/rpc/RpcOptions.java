package io.braidfs.common.rpc;

import io.braidfs.common.config.BraidConfig;
import java.time.Duration;

/**
 * The tunables of the RPC runtime, read once from the {@code braid.rpc.*} configuration keys.
 *
 * @param transport how the socket transport is chosen
 * @param maxMessageBytes the largest protobuf message in one frame
 * @param maxPayloadBytes the largest raw payload in one frame
 * @param callTimeout the default deadline of a client call
 * @param connectTimeout how long a client waits for a connection
 * @param spinWait how long a caller waiting for an answer spins before parking
 * @param maxOutstanding per connection, the calls in flight before further callers wait
 * @param clientIoThreads client event loops; 0 means min(processors, 4)
 * @param serverIoThreads server event loops; 0 means the number of processors
 * @param serverMaxInflight per connection, requests being handled before the server stops reading
 * @param shutdownGrace how long close waits for event loops to finish
 * @param clientIdleTimeout a client closes a connection idle this long; zero: never
 * @param serverHandshakeTimeout a server closes a connection whose Hello is not accepted in time
 * @param serverIdleTimeout a server closes a connection idle this long; zero: never
 * @param serverMaxConnectionsPerHost open connections one address may hold; 0: no limit
 */
public record RpcOptions(
    Transport.Choice transport,
    int maxMessageBytes,
    int maxPayloadBytes,
    Duration callTimeout,
    Duration connectTimeout,
    Duration spinWait,
    int maxOutstanding,
    int clientIoThreads,
    int serverIoThreads,
    int serverMaxInflight,
    Duration shutdownGrace,
    Duration clientIdleTimeout,
    Duration serverHandshakeTimeout,
    Duration serverIdleTimeout,
    int serverMaxConnectionsPerHost) {

  public RpcOptions {
    positive("maxMessageBytes", maxMessageBytes);
    positive("maxPayloadBytes", maxPayloadBytes);
    positive("maxOutstanding", maxOutstanding);
    positive("serverMaxInflight", serverMaxInflight);
    if (clientIoThreads < 0 || serverIoThreads < 0) {
      throw new IllegalArgumentException("io threads must be >= 0");
    }
    if (callTimeout.isNegative()
        || callTimeout.isZero()
        || connectTimeout.isNegative()
        || spinWait.isNegative()
        || clientIdleTimeout.isNegative()
        || serverIdleTimeout.isNegative()
        || serverHandshakeTimeout.isNegative()
        || serverHandshakeTimeout.isZero()) {
      throw new IllegalArgumentException("timeouts must be positive");
    }
    if (serverMaxConnectionsPerHost < 0) {
      throw new IllegalArgumentException(
          "serverMaxConnectionsPerHost must be >= 0: " + serverMaxConnectionsPerHost);
    }
  }

  /** The defaults of the {@code braid.rpc.*} keys. */
  public static RpcOptions defaults() {
    return from(BraidConfig.defaults());
  }

  /** The options set by the {@code braid.rpc.*} keys of {@code config}. */
  public static RpcOptions from(BraidConfig config) {
    return new RpcOptions(
        config.get(RpcConfigKeys.TRANSPORT),
        Math.toIntExact(config.get(RpcConfigKeys.FRAME_MAX_MESSAGE).toBytes()),
        Math.toIntExact(config.get(RpcConfigKeys.FRAME_MAX_PAYLOAD).toBytes()),
        config.get(RpcConfigKeys.CLIENT_CALL_TIMEOUT),
        config.get(RpcConfigKeys.CLIENT_CONNECT_TIMEOUT),
        config.get(RpcConfigKeys.CLIENT_SPIN_WAIT),
        config.get(RpcConfigKeys.CLIENT_MAX_OUTSTANDING),
        config.get(RpcConfigKeys.CLIENT_IO_THREADS),
        config.get(RpcConfigKeys.SERVER_IO_THREADS),
        config.get(RpcConfigKeys.SERVER_MAX_INFLIGHT),
        config.get(RpcConfigKeys.SERVER_SHUTDOWN_GRACE),
        config.get(RpcConfigKeys.CLIENT_IDLE_TIMEOUT),
        config.get(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT),
        config.get(RpcConfigKeys.SERVER_IDLE_TIMEOUT),
        config.get(RpcConfigKeys.SERVER_MAX_CONNECTIONS_PER_HOST));
  }

  private static void positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0: " + value);
    }
  }

  public int effectiveClientIoThreads() {
    return clientIoThreads > 0
        ? clientIoThreads
        : Math.min(Runtime.getRuntime().availableProcessors(), 4);
  }

  public int effectiveServerIoThreads() {
    return serverIoThreads > 0 ? serverIoThreads : Runtime.getRuntime().availableProcessors();
  }
}
