package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocsSectionTest {
  @TempDir Path dir;

  @Test
  void replacesOnlyTheTextBetweenTheMarkers() throws Exception {
    Path results = dir.resolve("results");
    Files.createDirectories(results);
    Files.writeString(results.resolve("exp10-ten.md"), "ten {dir}/a.png\n");
    Files.writeString(results.resolve("exp2-two.md"), "two\n");
    Files.writeString(results.resolve("notes.md"), "not a fragment\n");
    Path doc = dir.resolve("bench.md");
    Files.writeString(
        doc, "before\n" + DocsSection.BEGIN + "\nold\n" + DocsSection.END + "\nafter\n");

    DocsSection.update(doc, results, "head\n");

    assertThat(Files.readString(doc))
        .isEqualTo(
            "before\n"
                + DocsSection.BEGIN
                + "\nhead\n\ntwo\n\nten results/a.png\n\n"
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
}
