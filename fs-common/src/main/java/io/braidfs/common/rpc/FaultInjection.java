package io.braidfs.common.rpc;

import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Carries out a {@link Fault} on one request of an {@link RpcServer}, keeping the server's books as
 * a served request would: the request payload is released once, and the call leaves the server's
 * active count when it is answered or dropped, so a close does not wait for a dropped call.
 *
 * <p>A dropped call still holds its connection's in-flight slot, as a hung handler would: after
 * {@code braid.rpc.server.max-inflight} of them the connection stops reading.
 *
 * <p>Thread-safety: stateless.
 */
final class FaultInjection {
  private FaultInjection() {}

  /**
   * Applies {@code fault} to {@code call} in place of {@code server.serve}; a delayed call is
   * served later on its handler's executor (an event loop of the server for inline handlers).
   */
  static <Q extends Message, R extends Message> void apply(
      Fault fault,
      RpcServer server,
      RpcServer.Registration<Q, R> registration,
      ServerCall<Q, R> call,
      Executor inline) {
    if (fault instanceof Fault.Fail fail) {
      call.releasePayload();
      call.fail(fail.status(), fail.message());
    } else if (fault instanceof Fault.Delay delay) {
      Executor target = registration.executor() != null ? registration.executor() : inline;
      Executor guarded =
          task -> {
            try {
              target.execute(task);
            } catch (RejectedExecutionException e) {
              call.releasePayload();
              call.fail(Status.UNAVAILABLE, call.method() + ": the server closed meanwhile");
            }
          };
      CompletableFuture.delayedExecutor(delay.by().toNanos(), TimeUnit.NANOSECONDS, guarded)
          .execute(() -> server.serve(registration, call));
    } else {
      call.releasePayload(); // Fault.drop(): never answered, and no longer counted as active
      server.callDropped();
    }
  }
}
