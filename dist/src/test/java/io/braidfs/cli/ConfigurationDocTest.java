package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigDocs;
import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.common.config.ConfigKeySet;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Fails when a file generated from the {@link io.braidfs.common.config.ConfigKeySet}s on the
 * classpath differs from what they render: {@code docs/configuration.md}, and the tarball's {@code
 * conf/braid.properties} ({@code dist/src/dist/conf/}), which lists every key commented out with
 * its default and description. It lives in {@code dist} because {@code dist} depends on every
 * module, so every module's key sets are found here. Run with {@code -Dbraid.docs.regenerate=true}
 * to rewrite the files instead.
 */
class ConfigurationDocTest {
  private static final String REGENERATE_PROPERTY = "braid.docs.regenerate";

  /** Where the tarball's conf/braid.properties comes from, relative to the repository root. */
  static final String CONF_FILE = "dist/src/dist/conf/braid.properties";

  private static final int WIDTH = 100;

  @Test
  void configurationDocMatchesTheDeclaredKeys() throws IOException {
    check(
        repositoryRoot().resolve("docs/configuration.md"),
        ConfigDocs.render(ConfigKeyRegistry.discover().keySets()));
  }

  @Test
  void defaultConfFileMatchesTheDeclaredKeys() throws IOException {
    check(repositoryRoot().resolve(CONF_FILE), renderConf(ConfigKeyRegistry.discover().keySets()));
  }

  @Test
  void everyLineOfTheConfFileUncommentedIsTheDefaultConfiguration() throws IOException {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    String uncommented = renderConf(registry.keySets()).replaceAll("(?m)^#(braid\\.[^=]+=)", "$1");
    Properties p = new Properties();
    p.load(new StringReader(uncommented));
    assertThat(p.stringPropertyNames()).isEqualTo(registry.keys().keySet());

    Map<String, String> entries = new TreeMap<>();
    p.stringPropertyNames().forEach(k -> entries.put(k, p.getProperty(k)));
    BraidConfig loaded = BraidConfig.fromMap(entries, registry);
    for (ConfigKey<?> key : registry.keys().values()) {
      assertThat((Object) loaded.get(key)).as(key.name()).isEqualTo(key.defaultValue());
    }
  }

  private static void check(Path file, String expected) throws IOException {
    if (Boolean.getBoolean(REGENERATE_PROPERTY)) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, expected, StandardCharsets.UTF_8);
      return;
    }
    String actual =
        Files.exists(file)
            ? Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n")
            : "";
    assertThat(actual)
        .as("%s is stale or missing; regenerate it with: %s", file, ConfigDocs.REGENERATE_COMMAND)
        .isEqualTo(expected);
  }

  /**
   * The tarball's {@code conf/braid.properties}: a header on how to use it, then per component
   * (sorted) every key (sorted) with its description and type as comments and the key with its
   * default, commented out.
   */
  static String renderConf(List<? extends ConfigKeySet> sets) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Braid configuration: every key, commented out, with its default value.\n")
        .append("#\n")
        .append("# Generated from the ConfigKey declarations; do not edit it in the source tree.")
        .append(" Regenerate it with\n")
        .append("#   ")
        .append(ConfigDocs.REGENERATE_COMMAND)
        .append("\n#\n")
        .append("# To change a value, uncomment its line. Every command of bin/braid reads this")
        .append(" file from its\n")
        .append("# configuration directory, BRAID_CONF_DIR (by default this conf/), then")
        .append(" ROLE.properties there if it\n")
        .append("# exists (mds.properties, dataserver.properties, zk.properties, ...: ROLE is the")
        .append(" subcommand).\n")
        .append("# Options of the command override -D key=value, which overrides --conf FILE,")
        .append(" which overrides\n")
        .append(
            "# BRAID_LOG_DIR, which overrides ROLE.properties, which overrides this file, which")
        .append(" overrides the\n")
        .append("# defaults. An unknown braid.* key stops the command. Values: durations such as")
        .append(" 250ms, 30s or 5m;\n")
        .append("# data sizes such as 512, 4KiB or 64MiB (KB, MB and GB are refused); true or")
        .append(" false;\n")
        .append("# lists comma-separated. docs/configuration.md has the same keys as a table.\n");
    Map<String, List<ConfigKey<?>>> byComponent = new TreeMap<>();
    for (ConfigKeySet set : sets) {
      byComponent.computeIfAbsent(set.component(), c -> new ArrayList<>()).addAll(set.keys());
    }
    byComponent.forEach(
        (component, keys) -> {
          keys.sort(Comparator.comparing(ConfigKey::name));
          sb.append("\n# ==== ").append(component).append(" ====\n");
          for (ConfigKey<?> key : keys) {
            sb.append('\n');
            wrap(sb, key.description() + " (" + key.typeDescription() + ")");
            sb.append('#').append(key.name()).append('=').append(escape(defaultText(key)));
            sb.append('\n');
          }
        });
    return sb.toString();
  }

  private static <T> String defaultText(ConfigKey<T> key) {
    return key.format(key.defaultValue());
  }

  /** {@code text} as comment lines of at most {@link #WIDTH} characters. */
  private static void wrap(StringBuilder sb, String text) {
    StringBuilder line = new StringBuilder("#");
    for (String word : text.split("\\s+")) {
      if (line.length() + 1 + word.length() > WIDTH && line.length() > 1) {
        sb.append(line).append('\n');
        line.setLength(0);
        line.append('#');
      }
      line.append(' ').append(word);
    }
    sb.append(line).append('\n');
  }

  /** A value as java.util.Properties reads it back: backslashes and leading blanks escaped. */
  private static String escape(String value) {
    String s = value.replace("\\", "\\\\");
    return s.startsWith(" ") ? "\\" + s : s;
  }

  /**
   * The repository root: the nearest directory, from the working directory up, whose pom.xml is the
   * {@code braid-parent} project itself (not a module that names it as its parent).
   */
  static Path repositoryRoot() throws IOException {
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
