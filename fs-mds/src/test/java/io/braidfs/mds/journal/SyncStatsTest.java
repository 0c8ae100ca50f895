package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SyncStatsTest {
  @Test
  void anIntervalIsTheDifferenceOfTwoSnapshots() {
    SyncStats early = SyncStats.NONE.plus(3, 400_000);
    SyncStats late = early.plus(5, 200_000).plus(7, 300_000);

    SyncStats interval = late.minus(early);

    assertThat(interval).isEqualTo(new SyncStats(2, 12, 500_000));
    assertThat(interval.meanSyncMicros()).isEqualTo(250.0);
    assertThat(interval.recordsPerSync()).isEqualTo(6.0);
  }

  @Test
  void noSyncsMeanZeroNotADivisionByZero() {
    SyncStats s = SyncStats.NONE.plus(4, 1_000);

    assertThat(s.minus(s).meanSyncMicros()).isZero();
    assertThat(s.minus(s).recordsPerSync()).isZero();
    assertThat(SyncStats.NONE.meanSyncMicros()).isZero();
  }
}
