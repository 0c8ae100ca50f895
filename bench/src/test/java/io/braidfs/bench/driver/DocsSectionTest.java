package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocsSectionTest {
  @TempDir Path dir;

  private static final String FRAGMENT =
      """
      ### Experiment 3: Block size

      `./braid bench 3 --quick` on 2026-11-26: 2 min 1 s.

      3 rounds; the method, at length.

      **write** (MiB/s, higher is better; median of each cell, range in brackets)

      | | Braid | HDFS |
      |---|---|---|
      | 8 KiB | 355 | 160 |

      ![write](exp3-block-size-write.png)

      **read** (MiB/s, higher is better; median of each cell, range in brackets)

      | | Braid | HDFS |
      |---|---|---|
      | 8 KiB | 2,670 | 540 |

      A note.

      Raw samples: [exp3-block-size.csv](exp3-block-size.csv).
      """;

  @Test
  void keepsTheHeadingTheCommandAndTheFirstTableThenLinksTheFragment() {
    assertThat(DocsSection.compact(FRAGMENT, "benchmarks/driver/exp3-block-size.md"))
        .isEqualTo(
            """
            ### Experiment 3: Block size

            `./braid bench 3 --quick` on 2026-11-26: 2 min 1 s.

            **write** (MiB/s, higher is better; median of each cell, range in brackets)

            | | Braid | HDFS |
            |---|---|---|
            | 8 KiB | 355 | 160 |

            All tables, the method and the plots: \
            [exp3-block-size.md](benchmarks/driver/exp3-block-size.md).
            """);
  }

  @Test
  void aFailedExperimentKeepsItsFailureLine() {
    String failed =
        """
        ### Experiment 6: WAN

        `./braid bench 6` on 2026-11-26: 0 min 3 s.

        Method.

        **This run failed**: java.lang.IllegalStateException: no link

        Raw samples: [exp6-wan.csv](exp6-wan.csv).
        """;

    assertThat(DocsSection.compact(failed, "d/exp6-wan.md"))
        .isEqualTo(
            """
            ### Experiment 6: WAN

            `./braid bench 6` on 2026-11-26: 0 min 3 s.

            **This run failed**: java.lang.IllegalStateException: no link

            All tables, the method and the plots: [exp6-wan.md](d/exp6-wan.md).
            """);
  }

  @Test
  void replacesOnlyTheTextBetweenTheMarkers() throws Exception {
    Path results = dir.resolve("results");
    Files.createDirectories(results);
    Files.writeString(results.resolve("exp10-ten.md"), "### ten\n\n| a |\n\n![p](a.png)\n");
    Files.writeString(results.resolve("exp2-two.md"), "### two\n");
    Files.writeString(results.resolve("notes.md"), "not a fragment\n");
    Path doc = dir.resolve("bench.md");
    Files.writeString(
        doc, "before\n" + DocsSection.BEGIN + "\nold\n" + DocsSection.END + "\nafter\n");

    DocsSection.update(doc, results, "head\n");

    assertThat(Files.readString(doc))
        .isEqualTo(
            "before\n"
                + DocsSection.BEGIN
                + "\nhead\n"
                + "\n### two\n\nAll tables, the method and the plots:"
                + " [exp2-two.md](results/exp2-two.md).\n"
                + "\n### ten\n\n| a |\n\nAll tables, the method and the plots:"
                + " [exp10-ten.md](results/exp10-ten.md).\n\n"
                + DocsSection.END
                + "\nafter\n");
  }

  @Test
  void appendsTheSectionToADocumentWithoutMarkers() throws Exception {
    Path results = dir.resolve("r");
    Files.createDirectories(results);
    Path doc = dir.resolve("bench.md");
    Files.writeString(doc, "text");

    DocsSection.update(doc, results, "head\n");

    assertThat(Files.readString(doc))
        .isEqualTo("text\n\n" + DocsSection.BEGIN + "\nhead\n\n" + DocsSection.END + "\n");
  }

  @Test
  void readsTheMachineOfTheSection() throws Exception {
    Path doc = dir.resolve("bench.md");
    Files.writeString(
        doc,
        "Machine: not this one.\n"
            + DocsSection.BEGIN
            + "\nMachine: 2 cores, ext4.\n"
            + DocsSection.END);

    assertThat(DocsSection.machine(doc)).isEqualTo("2 cores, ext4");
    assertThat(DocsSection.machine(dir.resolve("none.md"))).isNull();
  }
}
