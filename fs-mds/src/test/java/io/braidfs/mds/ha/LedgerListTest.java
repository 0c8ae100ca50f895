package io.braidfs.mds.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerListTest {
  private static final LedgerList THREE =
      new LedgerList(
          List.of(
              new LedgerList.Ledger(7, 1),
              new LedgerList.Ledger(9, 21),
              new LedgerList.Ledger(12, 41)));

  @Test
  void trimmingDropsOnlyLedgersWhoseEveryRecordIsOlder() {
    assertThat(THREE.trimmedBefore(20)).isEqualTo(THREE); // record 20 is in the first ledger
    assertThat(THREE.trimmedBefore(21).ledgers())
        .extracting(LedgerList.Ledger::id)
        .containsExactly(9L, 12L);
    assertThat(THREE.trimmedBefore(41).ledgers())
        .extracting(LedgerList.Ledger::id)
        .containsExactly(12L);
    // The last ledger always stays, however far the point is.
    assertThat(THREE.trimmedBefore(1_000).ledgers())
        .extracting(LedgerList.Ledger::id)
        .containsExactly(12L);
    assertThat(THREE.trimmedBefore(-5)).isEqualTo(THREE);
    assertThat(LedgerList.EMPTY.trimmedBefore(100)).isEqualTo(LedgerList.EMPTY);
  }

  @Test
  void theFirstRetainedRecordIsTheFirstLedgersFirst() {
    assertThat(THREE.firstIndex()).isEqualTo(1);
    assertThat(THREE.trimmedBefore(41).firstIndex()).isEqualTo(41);
    assertThat(LedgerList.EMPTY.firstIndex()).isEqualTo(1);
  }

  @Test
  void encodesAsTextAndBack() {
    assertThat(LedgerList.decode(THREE.encode())).isEqualTo(THREE);
    assertThat(LedgerList.decode(null)).isEqualTo(LedgerList.EMPTY);
    assertThatThrownBy(() -> LedgerList.decode("7 x\n".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'7 x'");
  }
}
