package io.braidfs.common.rpc;

import io.braidfs.common.error.Status;

/**
 * Told of every call a server answered, for metrics: the method, the status and the time from the
 * request's arrival to the answer. Kept to plain Java so that servers need no metrics library; the
 * {@code braid} command turns it into Prometheus metrics.
 *
 * <p>Thread-safety: implementations must be thread-safe and quick: they run on event loops and
 * handler threads, once per call.
 */
@FunctionalInterface
public interface CallObserver {
  /** Observes nothing. */
  CallObserver NONE = (server, method, status, nanos) -> {};

  /**
   * @param server the answering server's id (e.g. {@code mds}, {@code ds1})
   * @param method the method called
   * @param status the answer's status
   * @param nanos from the request's arrival to its answer: the time the answer's frame reports to
   *     the caller (there in microseconds)
   */
  void answered(String server, RpcMethod<?, ?> method, Status status, long nanos);
}
