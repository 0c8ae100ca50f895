package io.braidfs.mds.lease;

import java.time.Duration;

/**
 * A snapshot of one file's write lease, taken by {@link LeaseManager} at one instant: what Create,
 * Open and UpdateLength report as {@code LeaseInfo}, and what the lease monitor and the status page
 * show.
 *
 * <p>Thread-safety: immutable.
 *
 * @param fileId the file's inode id
 * @param holder the client that holds the lease, or held it when recovery started
 * @param holderName that client's human-readable name, for messages
 * @param state whether the client holds it or the MDS is recovering the file
 * @param ttl how long the lease stays the holder's alone: the time left before the soft limit
 *     passes (the {@code ttl_ms} of {@code LeaseInfo}); zero once it has passed, and while
 *     recovering
 * @param untilHardLimit when held, the time left before the MDS recovers the file on its own; when
 *     recovering, the time left before a stalled recovery is started again
 * @param recoveryAttempt how many times recovery has been started; 0 while held
 */
public record Lease(
    long fileId,
    ClientId holder,
    String holderName,
    Lease.State state,
    Duration ttl,
    Duration untilHardLimit,
    int recoveryAttempt) {

  /**
   * The states of a lease; a file without a lease is closed (or was never opened for writing).
   *
   * <pre>
   *  (none) --acquire--> HELD --release by holder--> (none)
   *           HELD --acquire/renew/checkHolder by holder--> HELD (renewed)
   *           HELD --recover by holder, or by another client after the soft limit,
   *                  or expired() after the hard limit--> RECOVERING
   *     RECOVERING --completeRecovery--> (none)
   *     RECOVERING --recover after the soft limit, or expired() after the hard limit,
   *                  counted from the start of recovery--> RECOVERING (started again)
   * </pre>
   *
   * <p>Thread-safety: immutable.
   */
  public enum State {
    /** A client holds the lease and may write the file. */
    HELD,
    /**
     * The MDS owns the file and is closing it at the length its replicas agree on; no client may
     * write it until {@link LeaseManager#completeRecovery} releases the lease.
     */
    RECOVERING
  }
}
