package io.braidfs.mds.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.common.error.LeaseConflictException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.mds.lease.Lease.State;
import io.braidfs.testing.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class LeaseManagerTest {
  private static final Duration SOFT = Duration.ofSeconds(60);
  private static final Duration HARD = Duration.ofMinutes(20);
  private static final Duration NANO = Duration.ofNanos(1);

  private static final ClientId A = id(0xA);
  private static final ClientId B = id(0xB);
  private static final ClientId C = id(0xC);

  private final ManualClock clock = new ManualClock();
  private final LeaseManager leases = new LeaseManager(clock, SOFT, HARD);

  private static ClientId id(int last) {
    byte[] bytes = new byte[16];
    bytes[0] = 0x42;
    bytes[15] = (byte) last;
    return ClientId.of(bytes);
  }

  private static void assertStatus(ThrowingCallable call, Status status, String... parts) {
    assertThatThrownBy(call)
        .isInstanceOf(IOException.class)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(status))
        .hasMessageContainingAll(parts);
  }

  private Lease lease(long fileId) {
    return leases.get(fileId).orElseThrow();
  }

  // ---- holding --------------------------------------------------------------------------------

  @Test
  void acquireGrantsTheLeaseForTheSoftLimit() throws IOException {
    Lease granted = leases.acquire(7, A, "writer-a");

    assertThat(granted)
        .isEqualTo(new Lease(7, A, "writer-a", State.HELD, SOFT, HARD, 0))
        .isEqualTo(lease(7));
    assertThat(leases.filesHeldBy(A)).containsExactly(7L);
    assertThat(leases.size()).isEqualTo(1);
  }

  @Test
  void anotherClientConflictsAndTheMessageNamesTheFileAndTheHolder() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(Duration.ofSeconds(12));

    assertThatThrownBy(() -> leases.acquire(7, B, "writer-b"))
        .isInstanceOf(LeaseConflictException.class)
        .hasMessage("file 7 is open for writing by client writer-a (lease renewed 12s ago)");
    assertThat(lease(7).holder()).isEqualTo(A);
    assertThat(leases.filesHeldBy(B)).isEmpty();

    // Past the soft limit acquire still refuses: only RecoverLease takes a lease over.
    clock.advance(SOFT);
    assertStatus(() -> leases.acquire(7, B, "writer-b"), Status.LEASE_CONFLICT, "writer-a");
  }

  @Test
  void theSameClientMayAcquireAgainAndThatRenews() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(Duration.ofSeconds(50));
    assertThat(lease(7).ttl()).isEqualTo(Duration.ofSeconds(10));

    Lease again = leases.acquire(7, A, "writer-a");

    assertThat(again.ttl()).isEqualTo(SOFT);
    assertThat(leases.size()).isEqualTo(1);
  }

  @Test
  void renewExtendsEveryLeaseOfTheClientAndNoOtherClients() throws IOException {
    leases.acquire(1, A, "writer-a");
    leases.acquire(2, A, "writer-a");
    leases.acquire(3, B, "writer-b");
    clock.advance(Duration.ofSeconds(50));

    Renewal renewal = leases.renew(A);

    assertThat(renewal).isEqualTo(new Renewal(2, SOFT, List.of()));
    assertThat(lease(1).ttl()).isEqualTo(SOFT);
    assertThat(lease(2).ttl()).isEqualTo(SOFT);
    assertThat(lease(3).ttl()).isEqualTo(Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(11));
    assertThat(leases.recover(3, A)).isEqualTo(RecoveryOutcome.STARTED);
    assertStatus(() -> leases.recover(1, B), Status.LEASE_CONFLICT, "file 1", "writer-a");
    assertThat(leases.renew(C)).isEqualTo(new Renewal(0, SOFT, List.of()));
  }

  @Test
  void everyWritePathCallRenewsAllOfTheClientsLeases() throws IOException {
    leases.acquire(1, A, "writer-a");
    clock.advance(Duration.ofSeconds(40));
    leases.acquire(2, A, "writer-a");
    assertThat(lease(1).ttl()).isEqualTo(SOFT);

    clock.advance(Duration.ofSeconds(40));
    assertThat(leases.checkHolder(2, A).ttl()).isEqualTo(SOFT);
    assertThat(lease(1).ttl()).isEqualTo(SOFT);

    assertStatus(
        () -> leases.checkHolder(2, B),
        Status.LEASE_EXPIRED,
        "file 2: client " + B + " does not hold the write lease",
        "open for writing by client writer-a");
  }

  @Test
  void releaseEndsTheLeaseWithoutRenewingTheOthers() throws IOException {
    leases.acquire(7, A, "writer-a");
    leases.acquire(8, A, "writer-a");
    clock.advance(Duration.ofSeconds(30));

    assertStatus(() -> leases.release(7, B), Status.LEASE_EXPIRED, "writer-a");
    leases.release(7, A);

    assertThat(leases.get(7)).isEmpty();
    assertThat(leases.filesHeldBy(A)).containsExactly(8L);
    assertThat(lease(8).ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.CLOSED);
    assertStatus(() -> leases.release(7, A), Status.LEASE_EXPIRED, "file 7", "there is none");
    leases.acquire(7, B, "writer-b");

    leases.release(8, A);
    assertThat(leases.filesHeldBy(A)).isEmpty();
    assertThat(leases.renew(A).renewed()).isZero();
  }

  // ---- limits, exactly at their boundaries ----------------------------------------------------

  @Test
  void anotherClientMayRecoverOnlyStrictlyAfterTheSoftLimit() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(SOFT);

    assertThat(lease(7).ttl()).isZero();
    assertStatus(
        () -> leases.recover(7, B),
        Status.LEASE_CONFLICT,
        "recover lease of file 7: client writer-a renewed the lease 1m ago",
        "only after the soft limit of 1m");
    assertThat(lease(7).state()).isEqualTo(State.HELD);

    clock.advance(NANO);
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.STARTED);
    assertThat(lease(7).state()).isEqualTo(State.RECOVERING);
  }

  @Test
  void theMdsRecoversOnItsOwnOnlyStrictlyAfterTheHardLimit() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(HARD);

    assertThat(leases.expired()).isEmpty();
    assertThat(lease(7).state()).isEqualTo(State.HELD);
    assertThat(lease(7).untilHardLimit()).isZero();

    clock.advance(NANO);
    assertThat(leases.expired())
        .containsExactly(new Lease(7, A, "writer-a", State.RECOVERING, Duration.ZERO, HARD, 1));
    assertThat(leases.expired()).isEmpty();
    assertThat(leases.filesHeldBy(A)).isEmpty();
  }

  @Test
  void aRenewingClientNeverExpires() throws IOException {
    leases.acquire(7, A, "writer-a");
    leases.acquire(8, B, "writer-b");
    for (int i = 0; i < 5; i++) {
      clock.advance(HARD.minusMinutes(1));
      leases.renew(A);
    }
    // B went silent long ago; A's renewals keep A's lease alone.
    assertThat(leases.expired()).extracting(Lease::fileId).containsExactly(8L);
    assertThat(lease(7).state()).isEqualTo(State.HELD);
  }

  // ---- recovery -------------------------------------------------------------------------------

  @Test
  void recoveryMovesHeldToRecoveringToReleased() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(SOFT.plus(NANO));

    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.STARTED);
    assertThat(lease(7))
        .isEqualTo(new Lease(7, A, "writer-a", State.RECOVERING, Duration.ZERO, HARD, 1));

    // While recovering: nobody may write, not even the former holder.
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.IN_PROGRESS);
    assertThat(leases.recover(7, A)).isEqualTo(RecoveryOutcome.IN_PROGRESS);
    assertStatus(
        () -> leases.acquire(7, A, "writer-a"),
        Status.LEASE_CONFLICT,
        "file 7 is being recovered from client writer-a (attempt 1, started 0s ago)");
    assertStatus(() -> leases.acquire(7, B, "writer-b"), Status.LEASE_CONFLICT, "file 7");
    assertStatus(() -> leases.checkHolder(7, A), Status.LEASE_EXPIRED, "being recovered");
    assertStatus(() -> leases.release(7, A), Status.LEASE_EXPIRED, "being recovered");
    assertThat(leases.renew(A)).isEqualTo(new Renewal(0, SOFT, List.of(7L)));

    assertThat(leases.completeRecovery(7)).isTrue();
    assertThat(leases.get(7)).isEmpty();
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.CLOSED);
    assertThat(leases.completeRecovery(7)).isFalse();
    assertThat(leases.acquire(7, B, "writer-b").holder()).isEqualTo(B);
    assertThat(leases.completeRecovery(7)).isFalse(); // held, not recovering: untouched
    assertThat(lease(7).state()).isEqualTo(State.HELD);
  }

  @Test
  void theHolderMayRecoverItsOwnLeaseAtOnce() throws IOException {
    leases.acquire(7, A, "writer-a");

    assertThat(leases.recover(7, A)).isEqualTo(RecoveryOutcome.STARTED);
    assertThat(lease(7).state()).isEqualTo(State.RECOVERING);
    assertThat(leases.renew(A).lostFileIds()).isEmpty(); // it asked; nothing to tell it
  }

  @Test
  void aStalledRecoveryStartsAgain() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(SOFT.plus(NANO));
    leases.recover(7, B);

    clock.advance(SOFT);
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.IN_PROGRESS);
    clock.advance(NANO);
    assertThat(leases.recover(7, B)).isEqualTo(RecoveryOutcome.STARTED);
    assertThat(lease(7).recoveryAttempt()).isEqualTo(2);

    // Nobody asks again: the monitor starts it again after the hard limit.
    clock.advance(HARD);
    assertThat(leases.expired()).isEmpty();
    clock.advance(NANO);
    assertThat(leases.expired())
        .containsExactly(new Lease(7, A, "writer-a", State.RECOVERING, Duration.ZERO, HARD, 3));
  }

  // ---- lost leases ----------------------------------------------------------------------------

  @Test
  void aLostLeaseIsReportedOnceByTheNextRenewal() throws IOException {
    leases.acquire(7, A, "writer-a");
    leases.acquire(8, A, "writer-a");
    clock.advance(SOFT.plus(NANO));
    leases.recover(7, B);

    assertThat(leases.renew(A)).isEqualTo(new Renewal(1, SOFT, List.of(7L)));
    assertThat(leases.renew(A)).isEqualTo(new Renewal(1, SOFT, List.of()));
  }

  @Test
  void leasesExpiredByTheMonitorAreReportedAsLost() throws IOException {
    leases.acquire(7, A, "writer-a");
    leases.acquire(9, C, "writer-c");
    clock.advance(HARD.plus(NANO));
    assertThat(leases.expired()).extracting(Lease::fileId).containsExactly(7L, 9L);

    assertThat(leases.renew(C).lostFileIds()).containsExactly(9L);
    clock.advance(HARD); // exactly the hard limit after the loss: still remembered
    assertThat(leases.expired()).isEmpty();
    assertThat(leases.renew(A).lostFileIds()).containsExactly(7L);
  }

  @Test
  void anUnreportedLossIsForgottenAfterTheHardLimit() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(SOFT.plus(NANO));
    leases.recover(7, B);

    clock.advance(HARD);
    leases.expired();
    clock.advance(NANO);
    leases.expired();

    assertThat(leases.renew(A).lostFileIds()).isEmpty();
  }

  @Test
  void acquiringTheFileAgainCancelsItsLoss() throws IOException {
    leases.acquire(7, A, "writer-a");
    clock.advance(SOFT.plus(NANO));
    leases.recover(7, B);
    leases.completeRecovery(7);

    leases.acquire(7, A, "writer-a");

    assertThat(leases.renew(A)).isEqualTo(new Renewal(1, SOFT, List.of()));
  }

  // ---- rebuilding, configuration, concurrency --------------------------------------------------

  @Test
  void restoredLeasesStartRenewed() throws IOException {
    clock.advance(Duration.ofHours(5));
    assertThat(leases.restore(7, A, "writer-a"))
        .isEqualTo(new Lease(7, A, "writer-a", State.HELD, SOFT, HARD, 0));
    assertThatThrownBy(() -> leases.restore(7, B, "writer-b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("file 7");
    assertStatus(() -> leases.acquire(7, B, "writer-b"), Status.LEASE_CONFLICT, "writer-a");
  }

  @Test
  void theHardLimitMustExceedTheSoftLimit() {
    assertThatThrownBy(() -> new LeaseManager(clock, SOFT, SOFT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll("braid.mds.lease.hard-limit", "braid.mds.lease.soft-limit");
    assertThatThrownBy(() -> new LeaseManager(clock, Duration.ZERO, HARD))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                LeaseManager.from(
                    BraidConfig.builder()
                        .set(MdsLeaseConfigKeys.SOFT_LIMIT, Duration.ofMinutes(30))
                        .set(MdsLeaseConfigKeys.HARD_LIMIT, Duration.ofMinutes(10))
                        .build(),
                    clock))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void configuredFromTheMdsLeaseKeys() {
    LeaseManager defaults = LeaseManager.from(BraidConfig.defaults(), clock);
    assertThat(defaults.softLimit()).isEqualTo(Duration.ofSeconds(60));
    assertThat(defaults.hardLimit()).isEqualTo(Duration.ofMinutes(20));

    LeaseManager custom =
        LeaseManager.from(
            BraidConfig.builder()
                .set("braid.mds.lease.soft-limit", "5s")
                .set("braid.mds.lease.hard-limit", "1h")
                .build(),
            clock);
    assertThat(custom.softLimit()).isEqualTo(Duration.ofSeconds(5));
    assertThat(custom.hardLimit()).isEqualTo(Duration.ofHours(1));

    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    assertThat(registry.key("braid.mds.lease.soft-limit")).isSameAs(MdsLeaseConfigKeys.SOFT_LIMIT);
    assertThat(registry.key("braid.mds.lease.hard-limit")).isSameAs(MdsLeaseConfigKeys.HARD_LIMIT);
  }

  @Test
  void clientIdsAreSixteenBytesCompared() {
    byte[] bytes = new byte[16];
    bytes[3] = 9;
    ClientId one = ClientId.of(bytes);
    bytes[3] = 0; // copied: changing the array later changes nothing
    assertThat(one.toBytes()[3]).isEqualTo((byte) 9);
    assertThat(one)
        .isEqualTo(ClientId.of(one.toBytes()))
        .hasSameHashCodeAs(ClientId.of(one.toBytes()));
    assertThat(one).isNotEqualTo(ClientId.of(bytes));
    assertThat(one.toString()).isEqualTo("00000009000000000000000000000000");
    assertThatThrownBy(() -> ClientId.of(new byte[15]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16 bytes");
  }

  @Test
  void concurrentAcquirersOfOneFileGetOneWinner() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (long fileId = 1; fileId <= 200; fileId++) {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> attempts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          ClientId client = id(t);
          long file = fileId;
          Callable<Boolean> acquire =
              () -> {
                start.await();
                try {
                  leases.acquire(file, client, "writer-" + client);
                  return true;
                } catch (LeaseConflictException e) {
                  return false;
                }
              };
          attempts.add(pool.submit(acquire));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> f : attempts) {
          winners += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).as("file %d", fileId).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(leases.size()).isEqualTo(200);
  }
}
