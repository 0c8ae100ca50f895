package io.braidfs.common.rpc;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Test-bench access to the {@link RpcServer}s running in this JVM, each named by the address it
 * listens on ({@link RpcServer#boundAddress()}), so that a bench can reach the server inside an MDS
 * or a data server without those exposing it: install a {@link FaultHook}, or kill the server's
 * network side abruptly. Production code does not call these; a server registers here while it
 * listens and costs nothing more.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RpcServerHooks {
  private static final Map<InetSocketAddress, RpcServer> RUNNING = new ConcurrentHashMap<>();

  private RpcServerHooks() {}

  /**
   * Installs {@code hook} on the server listening on {@code address}, replacing any earlier one;
   * null removes it. It applies to requests read from then on.
   *
   * @throws IllegalStateException if no server of this JVM listens on {@code address}
   */
  public static void setFaultHook(InetSocketAddress address, @Nullable FaultHook hook) {
    server(address).faultHook(hook);
  }

  /**
   * Kills the network side of the server listening on {@code address} as a {@code kill -9} of its
   * process would: it stops listening, every connection is reset (no goodbye, no answer still
   * queued is sent), no request read from then on is started, and answers of handlers still running
   * go nowhere. The server must still be closed to release its threads; what its owner does on
   * close (flushing a store, say) still happens, so this is as abrupt as in-process allows.
   *
   * @throws IllegalStateException if no server of this JVM listens on {@code address}
   */
  public static void abort(InetSocketAddress address) {
    server(address).abort();
  }

  private static RpcServer server(InetSocketAddress address) {
    RpcServer s = RUNNING.get(address);
    if (s == null) {
      throw new IllegalStateException("no RPC server of this JVM listens on " + address);
    }
    return s;
  }

  /** Called by a server once it listens. */
  static void listening(InetSocketAddress address, RpcServer server) {
    RUNNING.put(address, server);
  }

  /** Called by a server that stops listening; a newer server at the address stays. */
  static void stopped(InetSocketAddress address, RpcServer server) {
    RUNNING.remove(address, server);
  }
}
