package io.braidfs.common.error;

/**
 * Implemented by every exception Braid raises for a non-OK {@link Status}, so that a boundary (the
 * FUSE errno, the Hadoop exception) can map it back to exactly one status.
 *
 * <p>Thread-safety: implementations are immutable.
 */
public interface StatusException {
  /** The status this exception stands for; never {@link Status#OK}. */
  Status status();
}
