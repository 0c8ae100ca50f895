package io.braidfs.common.rpc;

import org.jspecify.annotations.Nullable;

/**
 * A test bench's say over the requests one {@link RpcServer} serves, so that recovery paths can be
 * tested against a server that loses, delays or refuses calls: consulted for each request after it
 * was read and parsed, just before its handler would run (Hello, which the runtime answers itself,
 * is never shown to it). Installed and removed while the server runs, through {@link
 * RpcServerHooks#setFaultHook}; a server without one pays one volatile read per request.
 *
 * <p>Thread-safety: called on event loops and handler executors, concurrently; implementations must
 * be thread-safe and must not block.
 */
@FunctionalInterface
public interface FaultHook {
  /** What to do with {@code call} instead of serving it, or null to serve it as usual. */
  @Nullable Fault faultFor(ServerCall<?, ?> call);
}
