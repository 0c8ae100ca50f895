package io.braidfs.mds.cluster;

/**
 * How a data server takes part in the cluster, as an operator set it ({@code braid admin
 * decommission}, {@code maintenance}, {@code recommission}); kept in the namespace's store so it
 * survives an MDS restart.
 *
 * <p>Thread-safety: immutable.
 */
public enum AdminState {
  /** Holds replicas and receives new ones. */
  IN_SERVICE,
  /** Being drained: serves reads, receives nothing new; its replicas are copied elsewhere. */
  DECOMMISSIONING,
  /** Drained: holds no replica that is needed. */
  DECOMMISSIONED,
  /**
   * Away for a planned restart: receives nothing new, and while it is dead its replicas still
   * count, so nothing is re-replicated because of it.
   */
  IN_MAINTENANCE;

  /** Whether new replicas may be placed on a server in this state. */
  public boolean acceptsReplicas() {
    return this == IN_SERVICE;
  }

  /** Whether the server's replicas count towards a chunk's replication. */
  public boolean countsReplicas() {
    return this == IN_SERVICE || this == IN_MAINTENANCE;
  }
}
