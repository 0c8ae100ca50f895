package io.braidfs.client;

/**
 * How a data server takes part in the cluster, as an operator set it ({@link
 * BraidAdmin#setServerState}); whether it is live is reported beside it ({@link
 * ServerReport#live()}).
 *
 * <p>Thread-safety: immutable.
 */
public enum ServerState {
  /** Serving: it holds replicas and receives new ones. */
  IN_SERVICE,
  /**
   * Being drained: it still serves reads but receives nothing new, and its replicas are copied to
   * other servers; the MDS moves it to {@link #DECOMMISSIONED} once none of them is needed.
   */
  DECOMMISSIONING,
  /** Drained: it holds no replica that is needed, and may be switched off. */
  DECOMMISSIONED,
  /**
   * Down for a planned restart: it receives nothing new, and its replicas are not copied elsewhere
   * while it is away (they still count).
   */
  IN_MAINTENANCE,
  /** A state this client does not know (one a newer MDS added), or none; never sent. */
  UNKNOWN
}
