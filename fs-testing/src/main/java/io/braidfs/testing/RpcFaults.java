package io.braidfs.testing;

import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.Fault;
import io.braidfs.common.rpc.FaultHook;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServerHooks;
import io.braidfs.common.rpc.ServerCall;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The faults one server of a {@link MiniCluster} injects, by RPC method: every request of a method
 * is dropped (never answered), delayed, or failed with a status, until the fault is cleared. Set
 * and cleared while the server runs; kept across its restarts. Requests already being served are
 * not affected.
 *
 * <pre>{@code
 * cluster.dataServerFaults(0).fail(RpcMethod.WRITE_CHUNK, Status.NO_SPACE);
 * cluster.mdsFaults().delay(RpcMethod.GET_CHUNK_LOCATIONS, Duration.ofSeconds(2));
 * ...
 * cluster.dataServerFaults(0).clearAll();
 * }</pre>
 *
 * <p>While no fault is set, the server has no hook at all (its cost is then one volatile read per
 * request, see {@link FaultHook}).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RpcFaults implements FaultHook {
  private final String server;
  private final Map<RpcMethod<?, ?>, Fault> faults = new ConcurrentHashMap<>();
  private final Map<RpcMethod<?, ?>, AtomicLong> hits = new ConcurrentHashMap<>();
  private @Nullable InetSocketAddress attached; // guarded by this

  RpcFaults(String server) {
    this.server = server;
  }

  /** Every request of {@code method} from now on is read and never answered. */
  public RpcFaults drop(RpcMethod<?, ?> method) {
    return set(method, Fault.drop());
  }

  /** Every request of {@code method} from now on is served {@code by} late. */
  public RpcFaults delay(RpcMethod<?, ?> method, Duration by) {
    return set(method, Fault.delay(by));
  }

  /** Every request of {@code method} from now on is answered with {@code status} at once. */
  public RpcFaults fail(RpcMethod<?, ?> method, Status status) {
    return set(method, Fault.fail(status, status + " injected into " + method + " on " + server));
  }

  /** Sets {@code fault} for {@code method}, replacing any other. */
  public synchronized RpcFaults set(RpcMethod<?, ?> method, Fault fault) {
    faults.put(method, fault);
    install();
    return this;
  }

  /** Serves {@code method} as usual again. */
  public synchronized RpcFaults clear(RpcMethod<?, ?> method) {
    faults.remove(method);
    install();
    return this;
  }

  /** Serves every method as usual again. */
  public synchronized RpcFaults clearAll() {
    faults.clear();
    install();
    return this;
  }

  /** How many requests of {@code method} a fault was applied to so far. */
  public long hits(RpcMethod<?, ?> method) {
    AtomicLong n = hits.get(method);
    return n == null ? 0 : n.get();
  }

  @Override
  public @Nullable Fault faultFor(ServerCall<?, ?> call) {
    Fault f = faults.get(call.method());
    if (f != null) {
      hits.computeIfAbsent(call.method(), m -> new AtomicLong()).incrementAndGet();
    }
    return f;
  }

  /** The server now listens on {@code address}: installs the hook there if a fault is set. */
  synchronized void attach(InetSocketAddress address) {
    attached = address;
    install();
  }

  /** The server is about to stop; its hook goes with it. */
  synchronized void detach() {
    attached = null;
  }

  private void install() {
    if (attached != null) {
      RpcServerHooks.setFaultHook(attached, faults.isEmpty() ? null : this);
    }
  }

  @Override
  public String toString() {
    return "RpcFaults[" + server + ": " + faults + "]";
  }
}
