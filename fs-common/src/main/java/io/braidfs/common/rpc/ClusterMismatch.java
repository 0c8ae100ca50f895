package io.braidfs.common.rpc;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Why a client refused a server of another cluster ({@link ExpectedCluster}): the cause of the
 * status exception ({@code INVALID_ARGUMENT}) every call queued on that connection fails with, so a
 * caller can tell the refusal from a server's answer of the same status and try another server.
 * Nothing was sent to the refused server but the Hello. It has no stack trace.
 *
 * <p>Thread-safety: immutable.
 */
public final class ClusterMismatch extends Exception {
  private static final long serialVersionUID = 1L;

  private final String message;
  private final transient InetSocketAddress address;
  private final String serverCluster;
  private final String expectedCluster;

  ClusterMismatch(
      String clientName,
      String serverId,
      InetSocketAddress address,
      String serverCluster,
      String expectedCluster) {
    this(
        serverId
            + " at "
            + HostPort.of(address)
            + " belongs to cluster '"
            + serverCluster
            + "', not '"
            + expectedCluster
            + "' (the cluster of "
            + clientName
            + "); refusing it",
        address,
        serverCluster,
        expectedCluster);
  }

  private ClusterMismatch(
      String message, InetSocketAddress address, String serverCluster, String expectedCluster) {
    super(message, null, false, false);
    this.message = message;
    this.address = address;
    this.serverCluster = serverCluster;
    this.expectedCluster = expectedCluster;
  }

  /** What was refused and why, naming both clusters and the server's address. */
  public String message() {
    return message;
  }

  /** Where the refused server was reached. */
  public InetSocketAddress address() {
    return address;
  }

  /** The cluster the refused server named. */
  public String serverCluster() {
    return serverCluster;
  }

  /** The cluster the client expected. */
  public String expectedCluster() {
    return expectedCluster;
  }

  /** The refusal behind a call's failure, if the call failed because its server was refused. */
  public static Optional<ClusterMismatch> of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ClusterMismatch m) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }
}
