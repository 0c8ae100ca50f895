package io.braidfs.client;

import java.time.Duration;

/**
 * Tunables of the data path.
 *
 * <p>Thread-safety: immutable.
 *
 * @param maxTransfer the most bytes one read or write request carries (a stripe unit is split into
 *     pieces of at most this size); a multiple of 64 KiB, below the frame payload limit
 * @param maxInFlight per stream, data requests sent and not yet answered before the writer waits
 * @param callTimeout how long one data request may take before the replica counts as failed
 * @param maxReplacements per chunk and stream, how many failed replicas a writer replaces before it
 *     gives up and reports the failure
 * @param syncOnClose whether completing a file forces its chunks to disk on every replica (Hadoop's
 *     close); false leaves that to the data servers' page cache (POSIX close), and a later {@code
 *     fsync} forces them
 */
public record DataPathOptions(
    int maxTransfer,
    int maxInFlight,
    Duration callTimeout,
    int maxReplacements,
    boolean syncOnClose) {

  /** 8 MiB transfers, 32 in flight, 60 s per request, 3 replacements, durable close. */
  public static DataPathOptions defaults() {
    return new DataPathOptions(8 << 20, 32, Duration.ofSeconds(60), 3, true);
  }

  /**
   * Checks the values.
   *
   * @throws IllegalArgumentException if a value is not positive or maxTransfer is not a multiple of
   *     64 KiB
   */
  public DataPathOptions {
    if (maxTransfer <= 0 || maxTransfer % (64 << 10) != 0) {
      throw new IllegalArgumentException(
          "maxTransfer must be a positive multiple of 64 KiB: " + maxTransfer);
    }
    if (maxInFlight <= 0
        || maxReplacements < 0
        || callTimeout.isNegative()
        || callTimeout.isZero()) {
      throw new IllegalArgumentException(
          "maxInFlight and callTimeout must be positive, maxReplacements >= 0");
    }
  }
}
