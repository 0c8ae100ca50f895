package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchTest {
  @TempDir Path dir;

  private final FakeExperiment one = new FakeExperiment(1, "metadata");
  private final FakeExperiment two = new FakeExperiment(2, "small-files");
  private final FakeExperiment broken =
      new FakeExperiment(3, "block-size", new IllegalStateException("the disk is gone"));
  private final StringWriter err = new StringWriter();

  private int bench(String... args) {
    CommandLine cl = new CommandLine(new Bench(List.of(one, two, broken)));
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void runsTheChosenExperimentsAndWritesTheDocsSection() throws Exception {
    Path doc = dir.resolve("docs/benchmarks.md");
    Files.createDirectories(doc.getParent());
    Files.writeString(doc, "# Benchmarks\n\nHand-written text.\n");

    int rc =
        bench(
            "--quick",
            "--work",
            dir.resolve("work").toString(),
            "--docs",
            doc.toString(),
            "2",
            "1");

    assertThat(rc).isZero();
    assertThat(one.runs).isOne();
    assertThat(two.runs).isOne();
    assertThat(broken.runs).isZero();
    Path results = dir.resolve("docs/benchmarks/driver");
    assertThat(results.resolve("exp1-metadata.csv")).exists();
    String text = Files.readString(doc);
    assertThat(text)
        .startsWith("# Benchmarks\n\nHand-written text.\n")
        .contains("./braid bench all --quick --docs docs/benchmarks.md")
        .contains("**t** (ops/s, higher is better")
        .contains("[exp1-metadata.md](benchmarks/driver/exp1-metadata.md)")
        .doesNotContain("exp1-metadata.csv");
    // experiments in number order, whatever order they ran in
    assertThat(text.indexOf("### Experiment 1")).isLessThan(text.indexOf("### Experiment 2"));
    // the fragment itself is complete, its links relative to its own directory
    assertThat(Files.readString(results.resolve("exp1-metadata.md")))
        .contains("Sizes: quick, rounds 2.")
        .contains("[exp1-metadata.csv](exp1-metadata.csv)");
  }

  @Test
  void regenerateRewritesTheSectionFromTheFragmentsWithoutRunning() throws Exception {
    Path doc = dir.resolve("docs/benchmarks.md");
    Path results = dir.resolve("docs/benchmarks/driver");
    Files.createDirectories(results);
    Files.writeString(
        results.resolve("exp2-small-files.md"),
        "### Experiment 2: two\n\n`./braid bench 2` on today.\n\n**t** (x)\n\n| | a |\n|---|---|\n");
    Files.writeString(
        doc,
        "# B\n"
            + DocsSection.BEGIN
            + "\nMachine: the old one, 2 cores.\n"
            + DocsSection.END
            + "\nafter\n");

    int rc = bench("--docs", doc.toString(), "--regenerate", "--work", dir.resolve("w").toString());

    assertThat(rc).isZero();
    assertThat(one.runs + two.runs + broken.runs).isZero();
    assertThat(Files.readString(doc))
        .startsWith("# B\n" + DocsSection.BEGIN)
        .contains("Machine: the old one, 2 cores.\n")
        .contains(
            "### Experiment 2: two\n\n`./braid bench 2` on today.\n\n**t** (x)\n\n| | a |\n"
                + "|---|---|\n\nAll tables, the method and the plots:"
                + " [exp2-small-files.md](benchmarks/driver/exp2-small-files.md).\n")
        .endsWith(DocsSection.END + "\nafter\n");
  }

  @Test
  void regenerateWithoutDocsIsAUsageError() {
    int rc = bench("--regenerate", "--work", dir.toString());

    assertThat(rc).isEqualTo(2);
    assertThat(err.toString()).contains("--regenerate rewrites the file of --docs");
  }

  @Test
  void aFailedExperimentIsReportedAndTheOthersStillRun() throws Exception {
    Path out = dir.resolve("out");
    int rc = bench("--rounds", "1", "--work", dir.resolve("w").toString(), "--out", out.toString());

    assertThat(rc).isOne();
    assertThat(one.runs + two.runs + broken.runs).isEqualTo(3);
    assertThat(Files.readString(out.resolve("exp3-block-size.md")))
        .contains("**This run failed**: java.lang.IllegalStateException: the disk is gone");
    assertThat(Files.readString(out.resolve("exp2-small-files.md"))).contains("rounds 1");
  }

  @Test
  void anUnknownExperimentIsAUsageError() {
    int rc = bench("--work", dir.toString(), "9");

    assertThat(rc).isEqualTo(2);
    assertThat(err.toString()).contains("no experiment '9': use 1-3, a name from --list, or all");
    assertThat(one.runs + two.runs + broken.runs).isZero();
  }
}
