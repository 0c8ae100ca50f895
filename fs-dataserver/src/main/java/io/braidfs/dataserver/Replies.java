package io.braidfs.dataserver;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.ReplicaLocation;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns failures into answers. On a write chain every error names the data server that failed
 * ({@code ErrorInfo.failed_server_id}) so that the writer can ask the MDS to replace exactly that
 * replica: this server for its own failures, the next hop when it cannot be reached or times out,
 * and whatever the next hop named for failures further down.
 *
 * <p>Thread-safety: stateless.
 */
final class Replies {
  private static final Logger LOG = LoggerFactory.getLogger(Replies.class);

  private Replies() {}

  /** Answers {@code call} with the status of a local failure, naming server {@code self}. */
  static void fail(String id, ServerCall<?, ?> call, Throwable failure, int self) {
    Throwable e = unwrap(failure);
    Status status = StatusExceptions.statusOf(e);
    if (status == Status.INTERNAL) {
      LOG.warn("{}: {} failed", id, call, e);
    }
    call.fail(
        status,
        ErrorInfo.newBuilder()
            .setMessage(String.valueOf(e.getMessage()))
            .setFailedServerId(self)
            .build());
  }

  /** Answers {@code call} with the failure of the call forwarded to {@code next}. */
  static void failDownstream(ServerCall<?, ?> call, Throwable failure, ReplicaLocation next) {
    Throwable e = unwrap(failure);
    Status status = StatusExceptions.statusOf(e);
    int failed =
        RemoteErrorInfo.of(e)
            .map(ErrorInfo::getFailedServerId)
            .filter(s -> s != 0)
            .orElse(next.getServerId());
    call.fail(
        status,
        ErrorInfo.newBuilder()
            .setMessage(
                "downstream " + next.getHost() + ":" + next.getPort() + ": " + e.getMessage())
            .setFailedServerId(failed)
            .build());
  }

  static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }
}
