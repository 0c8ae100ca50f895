package io.braidfs.common.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.internal.Frame;
import io.braidfs.common.rpc.internal.OutboundFrame;
import io.braidfs.proto.ErrorInfo;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A client call from the moment it is issued until it is answered, failed or timed out.
 *
 * <p>Ownership: holds the request payload until it is handed to the connection for writing.
 *
 * <p>Thread-safety: created on the caller's thread, then handled on the connection's event loop;
 * {@link #finish} is guarded so the call completes exactly once.
 */
final class PendingCall<Q extends Message, R extends Message> {
  final RpcMethod<Q, R> method;
  final long callId;
  final Q request;
  final long deadlineNanos;
  final CompletableFuture<RpcResponse<R>> future = new CompletableFuture<>();
  private final AtomicBoolean finished = new AtomicBoolean();
  private final Runnable onFinish;
  private @Nullable Object payload;
  private long writtenNanos;

  /** Set on the caller's thread (while connecting) or on the event loop; read on the loop. */
  volatile @Nullable ScheduledFuture<?> timer;

  PendingCall(
      RpcMethod<Q, R> method,
      long callId,
      Q request,
      @Nullable Object payload,
      long deadlineNanos,
      Runnable onFinish) {
    this.method = method;
    this.callId = callId;
    this.request = request;
    this.payload = payload;
    this.deadlineNanos = deadlineNanos;
    this.onFinish = onFinish;
  }

  /** Builds the frame to write, handing the payload over to it. */
  OutboundFrame toFrame(long nowNanos) {
    writtenNanos = nowNanos;
    Object p = payload;
    payload = null;
    long remainingMicros = Math.max(1, (deadlineNanos - nowNanos) / 1000);
    return OutboundFrame.request(method.id(), callId, remainingMicros, request, p);
  }

  /**
   * Completes the call from a response frame; the frame stays owned by the caller.
   *
   * @return null, or why the answer breaks the protocol (the call has then failed, and the
   *     connection should be closed: its byte stream cannot be trusted)
   */
  @Nullable String complete(Frame frame, String peer) {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
    Status status;
    try {
      status = Status.fromCode(frame.statusCode());
    } catch (IllegalArgumentException e) {
      // A newer server may know statuses this client does not (docs/protocol.md).
      fail(Status.INTERNAL, method + " to " + peer + " answered with " + e.getMessage());
      return null;
    }
    String bad = null;
    if (frame.methodId() != method.id()) {
      bad = "answer to call " + callId + " (" + method + ") names method " + frame.methodId();
    } else if (frame.payload().isReadable() && !(status.isOk() && method.responsePayload())) {
      bad = method + " answer carries a payload";
    }
    if (bad != null) {
      fail(Status.MALFORMED_FRAME, bad);
      return bad;
    }
    try {
      if (!status.isOk()) {
        ErrorInfo error = ErrorInfo.parseFrom(frame.message().nioBuffer());
        String hint =
            error.getLeaderHint().isEmpty() ? "" : " (leader: " + error.getLeaderHint() + ")";
        // Always attached: it also tells a server's answer from a local failure of the same status.
        fail(status, error.getMessage() + hint, new RemoteErrorInfo(error));
        return null;
      }
      R message = method.responseParser().parseFrom(frame.message().nioBuffer());
      if (!finished.compareAndSet(false, true)) {
        return null;
      }
      onFinish.run();
      RpcResponse<R> response =
          new RpcResponse<>(
              message, frame.takePayload(), frame.serverMicros(), System.nanoTime() - writtenNanos);
      if (!future.complete(response)) {
        response.close();
      }
      return null;
    } catch (InvalidProtocolBufferException e) {
      bad = "cannot parse " + method + " answer from " + peer + ": " + e.getMessage();
      fail(Status.MALFORMED_FRAME, bad);
      return bad;
    }
  }

  /** Fails the call with this status, releasing the payload if it was never written. */
  void fail(Status status, String message) {
    fail(status, message, null);
  }

  /** Fails the call with this status and a local cause (or a {@link RemoteErrorInfo}). */
  void fail(Status status, String message, @Nullable Throwable details) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    if (payload != null) {
      ReferenceCountUtil.release(payload);
      payload = null;
    }
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
    onFinish.run();
    future.completeExceptionally(StatusExceptions.toIOException(status, message, details));
  }

  boolean isFinished() {
    return finished.get();
  }
}
