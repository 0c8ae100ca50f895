package io.braidfs.common.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders the configuration reference, {@code docs/configuration.md}, from {@link ConfigKeySet}s: a
 * first sentence saying the file is generated and how to regenerate it, a title, the value syntax,
 * then one section per component (sorted by component) with a table of key, type, default and
 * description (sorted by key).
 *
 * <p>The output depends only on the declarations, never on the environment, so a test can compare
 * it with the committed file ({@code ConfigurationDocTest} in the {@code dist} module, which sees
 * every module's key sets).
 *
 * <p>Thread-safety: stateless; safe for concurrent use.
 */
public final class ConfigDocs {
  /** The command that regenerates {@code docs/configuration.md}, quoted in the file itself. */
  public static final String REGENERATE_COMMAND =
      "mvn -pl dist -am test -Dtest=ConfigurationDocTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dbraid.fuzz.skip=true -Dbraid.docs.regenerate=true";

  private ConfigDocs() {}

  /**
   * The Markdown document for these key sets, with {@code \n} line endings and a final newline.
   *
   * @param sets the key sets, in any order
   */
  public static String render(List<? extends ConfigKeySet> sets) {
    List<ConfigKeySet> sorted = new ArrayList<>(sets);
    sorted.sort(Comparator.comparing(ConfigKeySet::component));
    StringBuilder sb = new StringBuilder();
    sb.append("This file is generated from the `ConfigKey` declarations of each component's")
        .append(" `ConfigKeySet`; do not edit it by hand. Regenerate it with\n`")
        .append(REGENERATE_COMMAND)
        .append("`.\n\n")
        .append("# Braid configuration\n\n")
        .append("Keys are named `braid.<component>.<area>.<name>`. Units are part of the value,")
        .append(" never of the name:\n\n")
        .append("- **duration**: ")
        .append(Durations.SYNTAX)
        .append(". A number without a unit is rejected.\n")
        .append("- **data size**: ")
        .append(DataSize.SYNTAX)
        .append(". KB, MB, GB (and K, M, G) are rejected as ambiguous.\n")
        .append("- **boolean**: `true` or `false`. **enum**: a constant name, case-insensitive.")
        .append(" **list of strings**: comma-separated.\n\n")
        .append("Unknown `braid.*` keys are reported as a warning at start; invalid values stop")
        .append(" the component from starting, with an error naming the key.\n");
    // One section per component, even when its keys come from several sets.
    Map<String, List<ConfigKey<?>>> byComponent = new TreeMap<>();
    for (ConfigKeySet set : sorted) {
      byComponent.computeIfAbsent(set.component(), c -> new ArrayList<>()).addAll(set.keys());
    }
    byComponent.forEach((component, keys) -> renderSection(sb, component, keys));
    return sb.toString();
  }

  private static void renderSection(StringBuilder sb, String component, List<ConfigKey<?>> keys) {
    keys.sort(Comparator.comparing(ConfigKey::name));
    sb.append("\n## ")
        .append(component)
        .append("\n\n")
        .append("| Key | Type | Default | Description |\n")
        .append("| --- | --- | --- | --- |\n");
    for (ConfigKey<?> key : keys) {
      sb.append("| `")
          .append(key.name())
          .append("` | ")
          .append(escape(key.typeDescription()))
          .append(" | ")
          .append(defaultCell(key))
          .append(" | ")
          .append(escape(key.description()))
          .append(" |\n");
    }
  }

  private static <T> String defaultCell(ConfigKey<T> key) {
    String formatted = key.format(key.defaultValue());
    return formatted.isEmpty() ? "(empty)" : "`" + formatted.replace("|", "\\|") + "`";
  }

  private static String escape(String text) {
    return text.replace("|", "\\|");
  }
}
