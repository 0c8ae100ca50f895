package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ModeChangeTest {
  private static String apply(String change, int mode, boolean directory) {
    return Integer.toOctalString(ModeChange.parse(change).apply(mode, directory));
  }

  @Test
  void octalModesReplaceEveryBit() {
    assertThat(apply("755", 0644, false)).isEqualTo("755");
    assertThat(apply("1777", 0755, true)).isEqualTo("1777");
    assertThat(apply("0", 04755, false)).isEqualTo("0");
  }

  @Test
  void symbolicClausesAddRemoveAndSetForWhomTheyName() {
    assertThat(apply("u+x", 0644, false)).isEqualTo("744");
    assertThat(apply("go-w", 0666, false)).isEqualTo("644");
    assertThat(apply("+x", 0644, false)).isEqualTo("755");
    assertThat(apply("a=r", 0755, false)).isEqualTo("444");
    assertThat(apply("u=rwx,g=rx,o=", 0000, false)).isEqualTo("750");
    assertThat(apply("o=rw", 0751, false)).isEqualTo("756");
    assertThat(apply("u+x-w", 0644, false)).isEqualTo("544");
    assertThat(apply("+t", 0777, true)).isEqualTo("1777");
    assertThat(apply("g+s", 0755, true)).isEqualTo("2755");
    assertThat(apply("u=rw", 04755, false)).isEqualTo("655");
  }

  @Test
  void capitalXSetsExecuteOnlyOnDirectoriesAndExecutables() {
    assertThat(apply("a+X", 0644, false)).isEqualTo("644");
    assertThat(apply("a+X", 0744, false)).isEqualTo("755");
    assertThat(apply("a+X", 0644, true)).isEqualTo("755");
    // Each clause sees what the ones before it did.
    assertThat(apply("u+x,a+X", 0644, false)).isEqualTo("755");
    assertThat(apply("a-x,a+X", 0755, false)).isEqualTo("644");
  }

  @Test
  void equalsReplacesTheStickyBitForOthersAndKeepsADirectorysSetIdBits() {
    assertThat(apply("o=rwx", 01777, true)).isEqualTo("777");
    assertThat(apply("a=rwx", 01777, true)).isEqualTo("777");
    assertThat(apply("g=rx", 02755, true)).isEqualTo("2755");
    assertThat(apply("g=rxs", 0755, true)).isEqualTo("2755");
    assertThat(apply("g=rx", 02755, false)).isEqualTo("755");
    assertThat(apply("755", 02755, true)).isEqualTo("755"); // octal: all bits, as HDFS
  }

  @Test
  void aBadModeNamesWhatIsWrong() {
    assertThatThrownBy(() -> ModeChange.parse("u"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("mode 'u': 'u' has no +, - or =");
    assertThatThrownBy(() -> ModeChange.parse("u+q"))
        .hasMessage("mode 'u+q': 'q' in 'u+q' is not one of r, w, x, X, s, t");
    assertThatThrownBy(() -> ModeChange.parse("888")).hasMessageContaining("mode '888'");
    assertThatThrownBy(() -> ModeChange.parse("u+x,"))
        .hasMessage("mode 'u+x,': '' has no +, - or =");
  }
}
