package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunTest {
  @TempDir Path dir;

  @Test
  void eachSystemLeadsInTurn() {
    List<String> systems = List.of("Braid", "local disk", "HDFS");
    assertThat(Run.rotate(systems, 0)).containsExactly("Braid", "local disk", "HDFS");
    assertThat(Run.rotate(systems, 1)).containsExactly("local disk", "HDFS", "Braid");
    assertThat(Run.rotate(systems, 5)).containsExactly("HDFS", "Braid", "local disk");
  }

  @Test
  void sharedReferencesStartOnceAndCloseLastFirst() throws Exception {
    List<String> closed = new ArrayList<>();
    int[] starts = {0};
    Run run = new Run(true, 0, dir, dir);
    AutoCloseable first = () -> closed.add("a");
    AutoCloseable second = () -> closed.add("b");
    AutoCloseable a =
        run.shared(
            "a",
            () -> {
              starts[0]++;
              return first;
            });
    assertThat(run.<AutoCloseable>shared("a", () -> second)).isSameAs(a);
    run.shared("b", () -> second);

    run.close();
    run.close(); // a second close (the shutdown hook's) closes nothing twice

    assertThat(starts[0]).isOne();
    assertThat(closed).containsExactly("b", "a");
  }

  @Test
  void roundsAndSizesFollowQuickUnlessRoundsAreGiven() throws Exception {
    Run quick = new Run(true, 0, dir, dir);
    Run full = new Run(false, 0, dir, dir);
    Run forced = new Run(false, 7, dir, dir);
    assertThat(quick.rounds(2, 10)).isEqualTo(2);
    assertThat(full.rounds(2, 10)).isEqualTo(10);
    assertThat(forced.rounds(2, 10)).isEqualTo(7);
    assertThat(quick.size(1, 2)).isEqualTo(1);
    assertThat(full.size(1, 2)).isEqualTo(2);

    Path scratch = quick.scratch("x");
    Files.writeString(scratch.resolve("f"), "old");
    assertThat(quick.scratch("x")).isEmptyDirectory();
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(Stats.median(List.of(5.0))).isEqualTo(5.0);
    assertThat(Stats.median(List.of())).isNaN();
  }
}
