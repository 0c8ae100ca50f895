package io.braidfs.client;

/**
 * How whole a file (or a chunk) is, as {@link BraidAdmin#fsck} found it. The order is from best to
 * worst, so the health of a file is the worst of its chunks'.
 *
 * <p>Thread-safety: immutable.
 */
public enum FileHealth {
  /** Every chunk has as many good replicas on live data servers as the file's replication. */
  HEALTHY,
  /** Some chunk has fewer good replicas than the replication, but at least one. */
  UNDER_REPLICATED,
  /** Some chunk has replicas, but every one of them is known to be corrupt. */
  CORRUPT,
  /** Some chunk has no replica on any live data server: its bytes cannot be read now. */
  MISSING,
  /** A health this client does not know (one a newer MDS added), or none. */
  UNKNOWN
}
