package io.braidfs.client;

/**
 * What an MDS is doing in its cluster, as it answers {@link MdsProbe#status} ({@code braid admin
 * ha}).
 *
 * <p>Thread-safety: immutable.
 */
public enum MdsRole {
  /** The only MDS: high availability is off; it serves the namespace. */
  SINGLE,
  /** The elected HA replica: it serves the namespace. */
  LEADER,
  /** An HA replica following the journal; it sends namespace calls to the leader. */
  STANDBY,
  /** An HA replica that won the election and is reading the journal's end before it serves. */
  TAKING_OVER,
  /** Opening its store; it serves nothing yet. */
  STARTING,
  /** Stopping; it serves nothing more. */
  STOPPING,
  /** An HA replica that lost or handed over leadership, starting again as a standby. */
  REJOINING,
  /** A role this client does not know (one a newer MDS added), or none. */
  UNKNOWN;

  /** Whether an MDS in this role serves the namespace: {@link #LEADER} or {@link #SINGLE}. */
  public boolean serves() {
    return this == LEADER || this == SINGLE;
  }
}
