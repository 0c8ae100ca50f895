package io.braidfs.common.rpc;

import java.net.InetSocketAddress;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The cluster a client's servers must belong to. A client built with one ({@link
 * RpcClient.Builder#expectedCluster}) checks the {@code cluster_id} of every connection's Hello
 * answer before it sends anything else on the connection, and refuses a server that names another
 * cluster (docs/protocol.md section 2). Without it, two clusters' addresses given to one client
 * look alike: a client would fail over from its cluster's dead MDS to another cluster's live one.
 *
 * <p>A server that names no cluster (empty) is accepted: a data server before its first
 * registration has none.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ExpectedCluster {
  private final @Nullable Supplier<String> source;
  private volatile String pinned; // written under this

  private ExpectedCluster(@Nullable Supplier<String> source, String pinned) {
    this.source = source;
    this.pinned = pinned;
  }

  /**
   * The cluster {@code configured} names, or, if it is empty, the first one a server of this client
   * names in its Hello: from then on the client stays with that cluster.
   */
  public static ExpectedCluster pinFirst(String configured) {
    return new ExpectedCluster(null, configured);
  }

  /**
   * Whatever cluster {@code source} names at each check, nothing while it names none (a data
   * server's own cluster id, which it learns at its first registration).
   */
  public static ExpectedCluster following(Supplier<String> source) {
    return new ExpectedCluster(source, "");
  }

  /** The cluster servers must belong to now; empty while none is known. */
  public String clusterId() {
    Supplier<String> s = source;
    return s != null ? s.get() : pinned;
  }

  /**
   * Checks a server's Hello answer, pinning its cluster if this pins the first one and none is
   * pinned yet.
   *
   * @param clientName the refusing client's name, for the message
   * @param serverId the server's id from its Hello
   * @param address where the server was reached
   * @param serverCluster the cluster id the server's Hello named; empty if it named none
   * @return null if the server may be used, else why it may not
   */
  @Nullable ClusterMismatch check(
      String clientName, String serverId, InetSocketAddress address, String serverCluster) {
    if (serverCluster.isEmpty()) {
      return null;
    }
    String expected = source != null ? source.get() : pin(serverCluster);
    if (expected.isEmpty()) {
      return null;
    }
    return expected.equals(serverCluster)
        ? null
        : new ClusterMismatch(clientName, serverId, address, serverCluster, expected);
  }

  /** The pinned cluster, {@code candidate} if none was pinned before. */
  private synchronized String pin(String candidate) {
    if (pinned.isEmpty()) {
      pinned = candidate;
    }
    return pinned;
  }
}
