package io.braidfs.mds.lease;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.Durations;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.mds.lease.Lease.State;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Write leases: at most one writer per file, with expiry and recovery (HDFS {@code LeaseManager}).
 *
 * <p><b>Holding and renewing.</b> Opening a file for writing {@link #acquire acquires} its lease;
 * committing it {@link #release releases} the lease. Leases are renewed per client, not per file:
 * {@link #renew} (RenewLease), {@link #acquire} and {@link #checkHolder} (every write-path call)
 * renew every lease the client holds, so all of a client's leases share one renewal time.
 *
 * <p><b>Limits.</b> Time is the injected {@link Clock}'s monotonic reading. A limit has passed when
 * strictly more than the limit has elapsed since the last renewal (a lease renewed at {@code t}
 * with a soft limit of 60 s is still protected at exactly {@code t + 60s}). Within the soft limit
 * the lease is the holder's alone. After it, another client may {@link #recover} the file. After
 * the hard limit, {@link #expired()}, called by the lease monitor, hands the file to the MDS to
 * recover on its own.
 *
 * <p><b>Recovery</b> is a small state machine, drawn in {@link Lease.State}: a lease goes from
 * {@code HELD} to {@code RECOVERING} (the MDS now owns the file; the former holder can no longer
 * write, commit or renew it), and from there it is released by {@link #completeRecovery} once the
 * namespace has closed the file at the length all its replicas agree on. This class only keeps the
 * states; whoever gets {@link RecoveryOutcome#STARTED} or a lease from {@link #expired()} drives
 * the recovery. A recovery that stalls (an MDS step-down, unreachable replicas) is started again by
 * a {@link #recover} call after the soft limit, or by {@link #expired()} after the hard limit,
 * counted from when it last started.
 *
 * <p><b>Lost leases.</b> When a lease is recovered against its holder's will, the holder is told
 * once, by its next {@link #renew}, so that its streams fail early; a loss nobody asks about is
 * forgotten after the hard limit.
 *
 * <p><b>Soft state.</b> Leases are not journaled. After an MDS restart or a takeover, the namespace
 * rebuilds them with {@link #restore} from the files open for writing, before it serves; the store
 * of those files (other work) keeps each writer's client id and name for this. Each restored lease
 * starts renewed, so every writer gets a full soft limit to find the new leader, as HDFS renews all
 * leases when a NameNode becomes active.
 *
 * <p>Why it is long: the lease state machine keeps three indexes (leases by file, holders in
 * renewal order, recoveries in start order) that each operation changes together under one lock, so
 * the operations and those indexes stay in one class; the lost-lease record is already {@code
 * LostLeases}, and a quarter of its lines are javadoc.
 *
 * <p>Thread-safety: thread-safe; every method takes one internal lock briefly and does no I/O. The
 * namespace executor and the lease monitor call it concurrently.
 */
public final class LeaseManager {
  private final Clock clock;
  private final Duration softLimit;
  private final Duration hardLimit;
  private final long softNanos;
  private final long hardNanos;

  private final Object lock = new Object();

  /** Every lease, held or recovering, by file id. */
  @GuardedBy("lock")
  private final Map<Long, FileLease> byFile = new HashMap<>();

  /**
   * The clients holding at least one {@code HELD} lease, least recently renewed first: the
   * monotonic clock makes insertion order renewal order, so {@link #expired()} stops at the first
   * client still within the hard limit.
   */
  @GuardedBy("lock")
  private final LinkedHashMap<ClientId, Holder> holders = new LinkedHashMap<>();

  /** {@code RECOVERING} leases, earliest (re)started first. */
  @GuardedBy("lock")
  private final LinkedHashMap<Long, FileLease> recovering = new LinkedHashMap<>();

  /** Leases lost to recovery, until their holders renew. */
  @GuardedBy("lock")
  private final LostLeases lost = new LostLeases();

  /**
   * A lease manager with these limits.
   *
   * @param clock the source of time; only its monotonic reading is used
   * @param softLimit how long a lease is its holder's alone without renewal
   * @param hardLimit how long without renewal before the MDS recovers the file on its own
   * @throws IllegalArgumentException if {@code softLimit} is not positive or {@code hardLimit} is
   *     not longer than it
   */
  public LeaseManager(Clock clock, Duration softLimit, Duration hardLimit) {
    this.clock = Objects.requireNonNull(clock, "clock");
    if (softLimit.isNegative() || softLimit.isZero() || hardLimit.compareTo(softLimit) <= 0) {
      throw new IllegalArgumentException(
          String.format(
              "%s (%s) must be longer than %s (%s), which must be positive",
              MdsLeaseConfigKeys.HARD_LIMIT, hardLimit, MdsLeaseConfigKeys.SOFT_LIMIT, softLimit));
    }
    this.softLimit = softLimit;
    this.hardLimit = hardLimit;
    this.softNanos = softLimit.toNanos();
    this.hardNanos = hardLimit.toNanos();
  }

  /**
   * A lease manager with the {@link MdsLeaseConfigKeys} limits of {@code config}.
   *
   * @throws IllegalArgumentException if the hard limit is not longer than the soft limit
   */
  public static LeaseManager from(BraidConfig config, Clock clock) {
    return new LeaseManager(
        clock,
        config.get(MdsLeaseConfigKeys.SOFT_LIMIT),
        config.get(MdsLeaseConfigKeys.HARD_LIMIT));
  }

  /** How long a lease is its holder's alone without renewal. */
  public Duration softLimit() {
    return softLimit;
  }

  /** How long without renewal before the MDS recovers a file on its own. */
  public Duration hardLimit() {
    return hardLimit;
  }

  /**
   * Grants the client the file's write lease, or renews it if the client holds it already; either
   * way every lease the client holds is renewed.
   *
   * @param clientName the client's human-readable name, for other clients' error messages
   * @return the lease, {@code HELD} by {@code client}
   * @throws IOException with {@link Status#LEASE_CONFLICT} if another client holds the lease (even
   *     past the soft limit: {@link #recover} takes it over) or the file is being recovered; the
   *     message names the file id and the holder
   */
  public Lease acquire(long fileId, ClientId client, String clientName) throws IOException {
    Objects.requireNonNull(clientName, "clientName");
    synchronized (lock) {
      long now = clock.nanoTime();
      FileLease lease = byFile.get(fileId);
      if (lease == null) {
        return grant(fileId, client, clientName, now);
      }
      if (lease.state == State.HELD && lease.holder.equals(client)) {
        touch(holder(lease), now);
        return snapshot(lease, now);
      }
      throw StatusExceptions.toIOException(Status.LEASE_CONFLICT, describeBusy(lease, now));
    }
  }

  /**
   * Re-creates a lease while an MDS rebuilds its leases from the files open for writing, before it
   * serves. The lease starts renewed now.
   *
   * @return the lease, {@code HELD} by {@code client}
   * @throws IllegalStateException if the file has a lease already
   */
  public Lease restore(long fileId, ClientId client, String clientName) {
    Objects.requireNonNull(clientName, "clientName");
    synchronized (lock) {
      if (byFile.containsKey(fileId)) {
        throw new IllegalStateException("file " + fileId + " already has a lease");
      }
      return grant(fileId, client, clientName, clock.nanoTime());
    }
  }

  /**
   * Renews every lease the client holds (RenewLease) and collects the leases it lost to recovery
   * since it was last told. A client holding nothing gets {@code renewed == 0}.
   */
  public Renewal renew(ClientId client) {
    synchronized (lock) {
      Holder h = holders.get(client);
      int renewed = 0;
      if (h != null) {
        touch(h, clock.nanoTime());
        renewed = h.files.size();
      }
      return new Renewal(renewed, softLimit, lost.take(client));
    }
  }

  /**
   * Checks that the client holds the file's lease, for the calls only the writer may make
   * (AllocateChunkSet, UpdateLength, ReplaceReplica), and renews every lease it holds.
   *
   * @return the renewed lease
   * @throws IOException with {@link Status#LEASE_EXPIRED} if the client does not hold the lease:
   *     there is none, another client holds it, or it is being recovered
   */
  public Lease checkHolder(long fileId, ClientId client) throws IOException {
    synchronized (lock) {
      long now = clock.nanoTime();
      FileLease lease = heldBy(fileId, client, now);
      touch(holder(lease), now);
      return snapshot(lease, now);
    }
  }

  /**
   * Releases the client's lease when it commits (closes) the file. The client's other leases are
   * not renewed.
   *
   * @throws IOException with {@link Status#LEASE_EXPIRED} if the client does not hold the lease
   */
  public void release(long fileId, ClientId client) throws IOException {
    synchronized (lock) {
      forgetHeld(heldBy(fileId, client, clock.nanoTime()));
      byFile.remove(fileId);
    }
  }

  /**
   * RecoverLease: takes the file from its writer so that the MDS can close it at the length all its
   * replicas agree on. The holder may recover its own lease at any time; another client only once
   * the holder has been silent for more than the soft limit. A recovery that has been running for
   * more than the soft limit is started again.
   *
   * @param requester the client asking; when it is not the holder, the holder is told of the loss
   *     by its next {@link #renew}
   * @return {@link RecoveryOutcome#CLOSED} if the file has no lease, {@link
   *     RecoveryOutcome#STARTED} if this call started recovery and the caller must drive it, {@link
   *     RecoveryOutcome#IN_PROGRESS} if a recovery is running
   * @throws IOException with {@link Status#LEASE_CONFLICT} if another client holds the lease and
   *     renewed it within the soft limit
   */
  public RecoveryOutcome recover(long fileId, ClientId requester) throws IOException {
    synchronized (lock) {
      long now = clock.nanoTime();
      FileLease lease = byFile.get(fileId);
      if (lease == null) {
        return RecoveryOutcome.CLOSED;
      }
      if (lease.state == State.RECOVERING) {
        if (now - lease.recoveryStartNanos > softNanos) {
          restartRecovery(lease, now);
          return RecoveryOutcome.STARTED;
        }
        return RecoveryOutcome.IN_PROGRESS;
      }
      boolean own = lease.holder.equals(requester);
      long silent = now - holder(lease).lastRenewedNanos;
      if (!own && silent <= softNanos) {
        throw StatusExceptions.toIOException(
            Status.LEASE_CONFLICT,
            "recover lease of file "
                + fileId
                + ": client "
                + lease.holderName
                + " renewed the lease "
                + ago(silent)
                + " ago; another client may recover it only after the soft limit of "
                + Durations.format(softLimit));
      }
      startRecovery(lease, now, !own);
      return RecoveryOutcome.STARTED;
    }
  }

  /**
   * Releases a lease in recovery once the namespace has closed the file.
   *
   * @return true if the file's lease was recovering and is now released; false if it had no lease
   *     or was held by a client (nothing changes)
   */
  public boolean completeRecovery(long fileId) {
    synchronized (lock) {
      FileLease lease = byFile.get(fileId);
      if (lease == null || lease.state != State.RECOVERING) {
        return false;
      }
      byFile.remove(fileId);
      recovering.remove(fileId);
      return true;
    }
  }

  /**
   * For the lease monitor: moves to {@code RECOVERING} every held lease whose client has been
   * silent for more than the hard limit, starts again every recovery that has been running for more
   * than the hard limit, and forgets losses older than the hard limit.
   *
   * @return the leases the caller must now recover, newly expired ones first; empty if none
   */
  public List<Lease> expired() {
    synchronized (lock) {
      long now = clock.nanoTime();
      List<Lease> due = new ArrayList<>();
      List<Holder> silent = new ArrayList<>();
      for (Holder h : holders.values()) {
        if (now - h.lastRenewedNanos <= hardNanos) {
          break;
        }
        silent.add(h);
      }
      for (Holder h : silent) {
        for (Long fileId : List.copyOf(h.files)) {
          FileLease lease = requireNonNull(byFile.get(fileId)); // a holder's files have leases
          startRecovery(lease, now, true);
          due.add(snapshot(lease, now));
        }
      }
      List<FileLease> stalled = new ArrayList<>();
      for (FileLease lease : recovering.values()) {
        if (now - lease.recoveryStartNanos <= hardNanos) {
          break;
        }
        stalled.add(lease);
      }
      for (FileLease lease : stalled) {
        restartRecovery(lease, now);
        due.add(snapshot(lease, now));
      }
      lost.forgetOlderThan(hardNanos, now);
      return due;
    }
  }

  /** The file's lease now, for LeaseInfo and the status page; empty if it has none. */
  public Optional<Lease> get(long fileId) {
    synchronized (lock) {
      FileLease lease = byFile.get(fileId);
      return lease == null ? Optional.empty() : Optional.of(snapshot(lease, clock.nanoTime()));
    }
  }

  /** The files whose lease the client holds, in ascending order. */
  public List<Long> filesHeldBy(ClientId client) {
    synchronized (lock) {
      Holder h = holders.get(client);
      List<Long> files = h == null ? new ArrayList<>() : new ArrayList<>(h.files);
      files.sort(null);
      return files;
    }
  }

  /** How many files have a lease, held or recovering. */
  public int size() {
    synchronized (lock) {
      return byFile.size();
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return String.format(
          "LeaseManager{leases=%d, holders=%d, recovering=%d, unreportedLosses=%d}",
          byFile.size(), holders.size(), recovering.size(), lost.size());
    }
  }

  // ---- state changes, with the lock held ----------------------------------------------------

  @GuardedBy("lock")
  private Lease grant(long fileId, ClientId client, String clientName, long now) {
    Holder h = holders.get(client);
    if (h == null) {
      h = new Holder(client);
      holders.put(client, h);
    }
    touch(h, now);
    h.files.add(fileId);
    FileLease lease = new FileLease(fileId, client, clientName);
    byFile.put(fileId, lease);
    // A loss of this file reported later would fail the client's new stream.
    lost.remove(client, fileId);
    return snapshot(lease, now);
  }

  /** Renews all of the holder's leases: new renewal time, and last in renewal order. */
  @GuardedBy("lock")
  private void touch(Holder h, long now) {
    h.lastRenewedNanos = now;
    holders.remove(h.client);
    holders.put(h.client, h);
  }

  /** Takes a HELD lease off its holder's list, and the holder off the list once it holds none. */
  @GuardedBy("lock")
  private void forgetHeld(FileLease lease) {
    Holder h = holder(lease);
    h.files.remove(lease.fileId);
    if (h.files.isEmpty()) {
      holders.remove(h.client);
    }
  }

  @GuardedBy("lock")
  private void startRecovery(FileLease lease, long now, boolean lostByHolder) {
    forgetHeld(lease);
    lease.state = State.RECOVERING;
    lease.recoveryAttempt = 1;
    lease.recoveryStartNanos = now;
    recovering.put(lease.fileId, lease);
    if (lostByHolder) {
      lost.add(lease.holder, lease.fileId, now);
    }
  }

  @GuardedBy("lock")
  private void restartRecovery(FileLease lease, long now) {
    recovering.remove(lease.fileId);
    lease.recoveryAttempt++;
    lease.recoveryStartNanos = now;
    recovering.put(lease.fileId, lease);
  }

  // ---- reading, with the lock held ----------------------------------------------------------

  /** The holder record of a HELD lease; it exists while the lease is held. */
  @GuardedBy("lock")
  private Holder holder(FileLease lease) {
    Holder h = holders.get(lease.holder);
    if (h == null) {
      throw new IllegalStateException("no holder record for the lease of file " + lease.fileId);
    }
    return h;
  }

  @GuardedBy("lock")
  private FileLease heldBy(long fileId, ClientId client, long now) throws IOException {
    FileLease lease = byFile.get(fileId);
    if (lease != null && lease.state == State.HELD && lease.holder.equals(client)) {
      return lease;
    }
    String why =
        lease == null
            ? "there is none (the file is closed, or its lease was recovered)"
            : describeBusy(lease, now);
    throw StatusExceptions.toIOException(
        Status.LEASE_EXPIRED,
        "file " + fileId + ": client " + client + " does not hold the write lease; " + why);
  }

  @GuardedBy("lock")
  private String describeBusy(FileLease lease, long now) {
    if (lease.state == State.HELD) {
      return "file "
          + lease.fileId
          + " is open for writing by client "
          + lease.holderName
          + " (lease renewed "
          + ago(now - holder(lease).lastRenewedNanos)
          + " ago)";
    }
    return "file "
        + lease.fileId
        + " is being recovered from client "
        + lease.holderName
        + " (attempt "
        + lease.recoveryAttempt
        + ", started "
        + ago(now - lease.recoveryStartNanos)
        + " ago)";
  }

  @GuardedBy("lock")
  private Lease snapshot(FileLease lease, long now) {
    if (lease.state == State.HELD) {
      long elapsed = now - holder(lease).lastRenewedNanos;
      return new Lease(
          lease.fileId,
          lease.holder,
          lease.holderName,
          State.HELD,
          remaining(softNanos, elapsed),
          remaining(hardNanos, elapsed),
          0);
    }
    return new Lease(
        lease.fileId,
        lease.holder,
        lease.holderName,
        State.RECOVERING,
        Duration.ZERO,
        remaining(hardNanos, now - lease.recoveryStartNanos),
        lease.recoveryAttempt);
  }

  private static Duration remaining(long limitNanos, long elapsedNanos) {
    return Duration.ofNanos(Math.max(0, limitNanos - elapsedNanos));
  }

  /** An elapsed time for messages, to the millisecond: {@code 12s}, {@code 1500ms}. */
  private static String ago(long nanos) {
    return Durations.format(Duration.ofMillis(nanos / 1_000_000));
  }

  // ---- records --------------------------------------------------------------------------------

  /** One file's lease. Guarded by the manager's lock. */
  private static final class FileLease {
    final long fileId;
    final ClientId holder;
    final String holderName;
    State state = State.HELD;
    long recoveryStartNanos;
    int recoveryAttempt;

    FileLease(long fileId, ClientId holder, String holderName) {
      this.fileId = fileId;
      this.holder = holder;
      this.holderName = holderName;
    }
  }

  /** A client holding leases: one renewal time for all of them. Guarded by the manager's lock. */
  private static final class Holder {
    final ClientId client;
    final Set<Long> files = new LinkedHashSet<>();
    long lastRenewedNanos;

    Holder(ClientId client) {
      this.client = client;
    }
  }
}
