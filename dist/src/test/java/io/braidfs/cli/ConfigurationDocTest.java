package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.ConfigDocs;
import io.braidfs.common.config.ConfigKeyRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Fails when {@code docs/configuration.md} differs from what the {@link
 * io.braidfs.common.config.ConfigKeySet}s on the classpath render. It lives in {@code dist} because
 * {@code dist} depends on every module, so every module's key sets are found here. Run with {@code
 * -Dbraid.docs.regenerate=true} to rewrite the file instead.
 */
class ConfigurationDocTest {
  private static final String REGENERATE_PROPERTY = "braid.docs.regenerate";

  @Test
  void configurationDocMatchesTheDeclaredKeys() throws IOException {
    Path doc = repositoryRoot().resolve("docs/configuration.md");
    String expected = ConfigDocs.render(ConfigKeyRegistry.discover().keySets());

    if (Boolean.getBoolean(REGENERATE_PROPERTY)) {
      Files.createDirectories(doc.getParent());
      Files.writeString(doc, expected, StandardCharsets.UTF_8);
      return;
    }

    String actual =
        Files.exists(doc)
            ? Files.readString(doc, StandardCharsets.UTF_8).replace("\r\n", "\n")
            : "";
    assertThat(actual)
        .as("%s is stale or missing; regenerate it with: %s", doc, ConfigDocs.REGENERATE_COMMAND)
        .isEqualTo(expected);
  }

  /**
   * The repository root: the nearest directory, from the working directory up, whose pom.xml is the
   * {@code braid-parent} project itself (not a module that names it as its parent).
   */
  private static Path repositoryRoot() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom)) {
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String withoutParent = text.replaceAll("(?s)<parent>.*?</parent>", "");
        if (withoutParent.contains("<artifactId>braid-parent</artifactId>")) {
          return dir;
        }
      }
    }
    throw new IllegalStateException(
        "no braid-parent pom.xml above " + Path.of("").toAbsolutePath());
  }
}
