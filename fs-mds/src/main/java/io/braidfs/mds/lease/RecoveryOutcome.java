package io.braidfs.mds.lease;

/**
 * What {@link LeaseManager#recover} found or did, for RecoverLease: {@code closed} in its response
 * is {@code this == CLOSED}.
 *
 * <p>Thread-safety: immutable.
 */
public enum RecoveryOutcome {
  /** No lease: the file is closed already (or was never open for writing). */
  CLOSED,
  /**
   * Recovery started (or started again, after a stall) with this call: the caller must now drive
   * it, closing the file at the length its replicas agree on, then call {@link
   * LeaseManager#completeRecovery}. The client is told to retry.
   */
  STARTED,
  /** An earlier call started recovery and it is still running; the client is told to retry. */
  IN_PROGRESS
}
