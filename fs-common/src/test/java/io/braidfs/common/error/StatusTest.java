package io.braidfs.common.error;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusTest {
  @Test
  void wireCodesAreUniqueUnsigned16BitAndRoundTrip() {
    Set<Integer> codes = new HashSet<>();
    for (Status s : Status.values()) {
      assertThat(s.code()).isBetween(0, 0xFFFF);
      assertThat(codes.add(s.code())).as("code of %s is unique", s).isTrue();
      assertThat(Status.fromCode(s.code())).isEqualTo(s);
    }
  }

  @Test
  void unknownCodeIsRejected() {
    assertThatThrownBy(() -> Status.fromCode(9999))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("9999");
    assertThatThrownBy(() -> Status.fromCode(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void onlyOkHasErrnoZero() {
    for (Status s : Status.values()) {
      assertThat(s.errno() == 0).as("%s", s).isEqualTo(s.isOk());
    }
  }

  @Test
  void retriableStatusesAreTheServiceUnavailableOnes() {
    for (Status s : Status.values()) {
      assertThat(s.isRetriable())
          .as("%s", s)
          .isEqualTo(
              s == Status.NOT_LEADER
                  || s == Status.UNAVAILABLE
                  || s == Status.BUSY
                  || s == Status.DEADLINE_EXCEEDED);
    }
  }
}
