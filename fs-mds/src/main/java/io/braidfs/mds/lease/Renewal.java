package io.braidfs.mds.lease;

import java.time.Duration;
import java.util.List;

/**
 * What {@link LeaseManager#renew} did, for RenewLease's response.
 *
 * <p>Thread-safety: immutable.
 *
 * @param renewed how many leases the client holds, all of them now renewed
 * @param ttl how long the renewed leases stay the client's alone (the soft limit)
 * @param lostFileIds files whose lease the client lost to recovery since it was last told, in
 *     ascending order; the client fails their streams. Each loss is reported once, and forgotten
 *     after the hard limit if the client never asks.
 */
public record Renewal(int renewed, Duration ttl, List<Long> lostFileIds) {
  /** Copies {@code lostFileIds}. */
  public Renewal {
    lostFileIds = List.copyOf(lostFileIds);
  }
}
