package io.braidfs.common.rpc;

import java.time.Duration;

/**
 * The tunables of the RPC runtime, read once from the {@code braid.rpc.*} configuration keys.
 *
 * @param transport how the socket transport is chosen
 * @param maxMessageBytes the largest protobuf message in one frame
 * @param maxPayloadBytes the largest raw payload in one frame
 * @param callTimeout the default deadline of a client call
 * @param connectTimeout how long a client waits for a connection
 * @param maxOutstanding per connection, the calls in flight before further callers wait
 * @param clientIoThreads client event loops; 0 means min(processors, 4)
 * @param serverIoThreads server event loops; 0 means the number of processors
 * @param serverMaxInflight per connection, requests being handled before the server stops reading
 * @param shutdownGrace how long close waits for event loops to finish
 */
public record RpcOptions(
    Transport.Choice transport,
    int maxMessageBytes,
    int maxPayloadBytes,
    Duration callTimeout,
    Duration connectTimeout,
    int maxOutstanding,
    int clientIoThreads,
    int serverIoThreads,
    int serverMaxInflight,
    Duration shutdownGrace) {

  public RpcOptions {
    positive("maxMessageBytes", maxMessageBytes);
    positive("maxPayloadBytes", maxPayloadBytes);
    positive("maxOutstanding", maxOutstanding);
    positive("serverMaxInflight", serverMaxInflight);
    if (clientIoThreads < 0 || serverIoThreads < 0) {
      throw new IllegalArgumentException("io threads must be >= 0");
    }
    if (callTimeout.isNegative() || callTimeout.isZero() || connectTimeout.isNegative()) {
      throw new IllegalArgumentException("timeouts must be positive");
    }
  }

  /** The defaults of the {@code braid.rpc.*} keys. */
  public static RpcOptions defaults() {
    return new RpcOptions(
        Transport.Choice.AUTO,
        4 << 20,
        16 << 20,
        Duration.ofSeconds(30),
        Duration.ofSeconds(10),
        1024,
        0,
        0,
        256,
        Duration.ofSeconds(2));
  }

  private static void positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0: " + value);
    }
  }

  int effectiveClientIoThreads() {
    return clientIoThreads > 0
        ? clientIoThreads
        : Math.min(Runtime.getRuntime().availableProcessors(), 4);
  }

  int effectiveServerIoThreads() {
    return serverIoThreads > 0 ? serverIoThreads : Runtime.getRuntime().availableProcessors();
  }

  public RpcOptions withCallTimeout(Duration timeout) {
    return new RpcOptions(
        transport,
        maxMessageBytes,
        maxPayloadBytes,
        timeout,
        connectTimeout,
        maxOutstanding,
        clientIoThreads,
        serverIoThreads,
        serverMaxInflight,
        shutdownGrace);
  }

  public RpcOptions withMaxOutstanding(int outstanding) {
    return new RpcOptions(
        transport,
        maxMessageBytes,
        maxPayloadBytes,
        callTimeout,
        connectTimeout,
        outstanding,
        clientIoThreads,
        serverIoThreads,
        serverMaxInflight,
        shutdownGrace);
  }

  public RpcOptions withServerMaxInflight(int inflight) {
    return new RpcOptions(
        transport,
        maxMessageBytes,
        maxPayloadBytes,
        callTimeout,
        connectTimeout,
        maxOutstanding,
        clientIoThreads,
        serverIoThreads,
        inflight,
        shutdownGrace);
  }

  public RpcOptions withTransport(Transport.Choice choice) {
    return new RpcOptions(
        choice,
        maxMessageBytes,
        maxPayloadBytes,
        callTimeout,
        connectTimeout,
        maxOutstanding,
        clientIoThreads,
        serverIoThreads,
        serverMaxInflight,
        shutdownGrace);
  }

  public RpcOptions withMaxPayloadBytes(int bytes) {
    return new RpcOptions(
        transport,
        maxMessageBytes,
        bytes,
        callTimeout,
        connectTimeout,
        maxOutstanding,
        clientIoThreads,
        serverIoThreads,
        serverMaxInflight,
        shutdownGrace);
  }
}
