package io.braidfs.common.rpc;

import com.google.protobuf.Message;
import io.netty.buffer.ByteBuf;

/**
 * A successful answer: the response message, its raw payload and how long it took.
 *
 * <p>Ownership: the receiver owns the payload and must {@link #close()} the response (or release
 * the payload it took) when done with it.
 *
 * <p>Thread-safety: not thread-safe.
 */
public final class RpcResponse<R extends Message> implements AutoCloseable {
  private final R message;
  private final ByteBuf payload;
  private final long serverMicros;
  private final long latencyNanos;

  RpcResponse(R message, ByteBuf payload, long serverMicros, long latencyNanos) {
    this.message = message;
    this.payload = payload;
    this.serverMicros = serverMicros;
    this.latencyNanos = latencyNanos;
  }

  public R message() {
    return message;
  }

  /** The raw payload (empty when none); valid until {@link #close()}. */
  public ByteBuf payload() {
    return payload;
  }

  /** The server's own handling time in microseconds, as it reported it. */
  public long serverMicros() {
    return serverMicros;
  }

  /**
   * The time from handing the request to the connection to receiving the answer, in nanoseconds;
   * minus {@link #serverMicros()} it is the network and queueing time.
   */
  public long latencyNanos() {
    return latencyNanos;
  }

  /** Releases the payload. */
  @Override
  public void close() {
    payload.release();
  }
}
