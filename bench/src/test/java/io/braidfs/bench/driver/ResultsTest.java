package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsTest {
  @TempDir Path out;

  @Test
  void tableHoldsMediansRangesAndRatiosOfTheSamples() throws Exception {
    Results r = new Results(new FakeExperiment(3, "block-size"));
    for (int round = 0; round < 3; round++) {
      r.record("write", "8 KiB", 8192, "Braid", round, 100 + round * 10, Unit.MIB_PER_S);
      r.record("write", "8 KiB", 8192, "local disk", round, 50 + round, Unit.MIB_PER_S);
    }
    r.record("write", "1 MiB", 1 << 20, "Braid", 0, 900, Unit.MIB_PER_S);
    r.ratio("Braid", "local disk");
    r.plot("write", "block size (bytes)", true);
    r.note("A note.");
    r.write(out, "### header\n");

    String md = Files.readString(out.resolve("exp3-block-size.md"));
    assertThat(md)
        .startsWith("### header\n")
        .contains("**write** (MiB/s, higher is better")
        .contains("| | Braid | local disk | Braid / local disk |")
        // 100, 110, 120 -> 110 (100-120); 50, 51, 52 -> 51 (50.0-52.0); 110 / 51 = 2.16
        .contains("| 8 KiB | 110 (100-120) | 51.0 (50.0-52.0) | 2.16 |")
        // a cell with one sample has no range, and no ratio without the reference
        .contains("| 1 MiB | 900 | | |")
        .contains("![write](exp3-block-size-write.png)")
        .contains("A note.")
        .contains("[exp3-block-size.csv](exp3-block-size.csv)");
    assertThat(r.median("write", "8 KiB", "Braid")).isEqualTo(110);
    assertThat(r.median("write", "8 KiB", "HDFS")).isNaN();

    List<String> csv = Files.readAllLines(out.resolve("exp3-block-size.csv"));
    assertThat(csv).hasSize(8);
    assertThat(csv.get(0)).isEqualTo("experiment,table,row,x,system,round,value,unit");
    assertThat(csv.get(1)).isEqualTo("exp3,write,8 KiB,8192.0,Braid,0,100.0,MiB/s");

    byte[] png = Files.readAllBytes(out.resolve("exp3-block-size-write.png"));
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
  }

  @Test
  void aTableWithoutPlottableRowsGetsNoPlot() throws Exception {
    Results r = new Results(new FakeExperiment(1, "metadata"));
    r.record("create", "one, two", Double.NaN, "Braid", 0, 5, Unit.OPS_PER_S);
    r.plot("create", "clients", false);
    r.describe("create", "open(O_CREAT) and close");
    r.write(out, "");

    String md = Files.readString(out.resolve("exp1-metadata.md"));
    assertThat(md).contains(": open(O_CREAT) and close").doesNotContain("![");
    assertThat(out.resolve("exp1-metadata-create.png")).doesNotExist();
    // a field with a comma is quoted
    assertThat(Files.readAllLines(out.resolve("exp1-metadata.csv")).get(1))
        .isEqualTo("exp1,create,\"one, two\",,Braid,0,5.0,ops/s");
  }

  @Test
  void aTableKeepsOneUnit() {
    Results r = new Results(new FakeExperiment(1, "metadata"));
    r.record("create", "1", 1, "Braid", 0, 5, Unit.OPS_PER_S);
    assertThatThrownBy(() -> r.record("create", "1", 1, "Braid", 1, 5, Unit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("table create is in ops/s, not s");
    assertThatThrownBy(() -> r.plot("stat", "clients", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no table stat to plot");
  }

  @Test
  void numbersKeepThreeSignificantDigits() {
    assertThat(Results.number(123456.7)).isEqualTo("123,457");
    assertThat(Results.number(56.78)).isEqualTo("56.8");
    assertThat(Results.number(5.678)).isEqualTo("5.68");
    assertThat(Results.number(0.012345)).isEqualTo("0.0123");
    assertThat(Results.number(0)).isEqualTo("0");
  }
}
