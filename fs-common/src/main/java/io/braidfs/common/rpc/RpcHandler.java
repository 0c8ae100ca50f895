package io.braidfs.common.rpc;

import com.google.protobuf.Message;

/**
 * Serves one RPC method. The handler answers through {@link ServerCall#reply} or {@link
 * ServerCall#fail}, now or later from any thread (an asynchronous handler may return before
 * answering). Throwing an exception that implements {@link io.braidfs.common.error.StatusException}
 * answers with its status; any other exception answers {@code INTERNAL} and is logged once with the
 * call id.
 *
 * <p>Thread-safety: a handler registered with an executor is called on that executor's threads,
 * concurrently; one registered inline runs on an event loop and must never block.
 *
 * @param <Q> the request type
 * @param <R> the response type
 */
@FunctionalInterface
public interface RpcHandler<Q extends Message, R extends Message> {
  void handle(ServerCall<Q, R> call) throws Exception;
}
