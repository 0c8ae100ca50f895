package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeyRegistry;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The configuration every subcommand that talks to or runs servers reads, each source overriding
 * the ones before:
 *
 * <ol>
 *   <li>the defaults (the keys' own, then the command's, such as {@code braid local}'s);
 *   <li>the configuration directory {@value #CONF_DIR_ENV} ({@code bin/braid} sets it to the
 *       installation's {@code conf/} unless it is set): its {@value #SHARED_FILE}, then the
 *       command's own {@code ROLE.properties} ({@code mds.properties}, {@code fs.properties}: the
 *       subcommand's name), each read if it exists;
 *   <li>the environment: {@value #LOG_DIR_ENV} sets {@code braid.log.dir};
 *   <li>{@code --conf FILE}, then {@code -D key=value};
 *   <li>the subcommand's own flags (such as {@code braid mds --address}).
 * </ol>
 *
 * <p>Unlike {@link BraidConfig}, which only warns about keys it does not know, the command line
 * refuses them: a key nobody declares in a file an operator wrote is a mistake worth stopping for.
 * Every problem becomes a {@link ConfigException}, so the command exits with {@link
 * Braid#EXIT_USAGE} and one line naming the key, where it was given and what was expected.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in, then one command reads it.
 */
public final class ConfigOptions {
  /** The environment variable naming the configuration directory. */
  static final String CONF_DIR_ENV = "BRAID_CONF_DIR";

  /** The environment variable that sets {@code braid.log.dir}. */
  static final String LOG_DIR_ENV = "BRAID_LOG_DIR";

  /** The file in {@value #CONF_DIR_ENV} that every command reads. */
  static final String SHARED_FILE = "braid.properties";

  @Option(
      names = "--conf",
      paramLabel = "FILE",
      description =
          "Read configuration from this properties file (braid.* keys); overrides those of"
              + " BRAID_CONF_DIR.")
  @Nullable Path confFile;

  @Option(
      names = "-D",
      paramLabel = "KEY=VALUE",
      description = "Set a configuration key; overrides --conf. May be repeated.")
  Map<String, String> properties = new LinkedHashMap<>();

  /**
   * The configuration: the configuration directory's files, the environment, the file, then {@code
   * -D}, then {@code flags} (the subcommand's own options as configuration entries), each
   * overriding the ones before.
   *
   * @throws ConfigException if the file cannot be read, or a key is unknown or its value invalid
   */
  public BraidConfig load(CommandLine cmd, Map<String, String> flags) {
    return load(cmd, Map.of(), flags);
  }

  /**
   * The configuration: the command's own {@code defaults} (such as {@code braid local}'s), then the
   * configuration directory's files, the environment, the file, then {@code -D}, then {@code
   * flags}, each overriding the ones before. The directory and the environment are those of the
   * {@link Braid} at the root of {@code cmd}; the role file is named after {@code cmd}.
   *
   * @throws ConfigException if a file cannot be read, {@value #CONF_DIR_ENV} is not a directory, or
   *     a key is unknown or its value invalid
   */
  public BraidConfig load(
      CommandLine cmd, Map<String, String> defaults, Map<String, String> flags) {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    Map<String, String> entries = new TreeMap<>(defaults);
    List<String> problems = new ArrayList<>();
    Map<String, String> environment = environment(cmd);
    for (Path file : confDirFiles(cmd, environment)) {
      String source = "in " + file;
      readFile(cmd, file, file + " (" + CONF_DIR_ENV + ")")
          .forEach((k, v) -> put(registry, entries, problems, source, k, v));
    }
    String logDir = environment.getOrDefault(LOG_DIR_ENV, "");
    if (!logDir.isEmpty()) {
      String source = "given with " + LOG_DIR_ENV;
      put(registry, entries, problems, source, LogConfigKeys.DIR.name(), logDir);
    }
    if (confFile != null) {
      String source = "in " + confFile;
      readFile(cmd, confFile, "--conf " + confFile)
          .forEach((k, v) -> put(registry, entries, problems, source, k, v));
    }
    properties.forEach((k, v) -> put(registry, entries, problems, "given with -D", k, v));
    flags.forEach((k, v) -> entries.put(k, v));
    if (!problems.isEmpty()) {
      throw new ConfigException(cmd, String.join("; ", problems), null);
    }
    try {
      return BraidConfig.fromMap(entries, registry);
    } catch (IllegalArgumentException e) {
      // A subcommand flag with a value its key refuses (the others were checked above).
      throw new ConfigException(cmd, String.valueOf(e.getMessage()).replace('\n', ' '), e);
    }
  }

  /** The environment of the {@link Braid} command at the root of {@code cmd}; none without it. */
  private static Map<String, String> environment(CommandLine cmd) {
    CommandLine root = cmd;
    while (root.getParent() != null) {
      root = root.getParent();
    }
    return root.getCommand() instanceof Braid braid ? braid.environment() : Map.of();
  }

  /**
   * The files of the configuration directory that exist, shared file first; none if {@value
   * #CONF_DIR_ENV} is not set.
   *
   * @throws ConfigException if it is set but names no directory
   */
  private static List<Path> confDirFiles(CommandLine cmd, Map<String, String> environment) {
    String dir = environment.getOrDefault(CONF_DIR_ENV, "");
    if (dir.isEmpty()) {
      return List.of();
    }
    Path d = Path.of(dir);
    if (!Files.isDirectory(d)) {
      throw new ConfigException(
          cmd, CONF_DIR_ENV + " is " + dir + ", which is not a directory", null);
    }
    List<Path> files = new ArrayList<>();
    for (String name : List.of(SHARED_FILE, cmd.getCommandName() + ".properties")) {
      Path f = d.resolve(name);
      if (Files.exists(f)) {
        files.add(f);
      }
    }
    return files;
  }

  /**
   * The entries of a properties file.
   *
   * @param what the file as error messages name it, such as {@code --conf FILE}
   */
  private static Map<String, String> readFile(CommandLine cmd, Path file, String what) {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      throw new ConfigException(cmd, "cannot read " + what + ": no such file", e);
    } catch (AccessDeniedException e) {
      throw new ConfigException(cmd, "cannot read " + what + ": permission denied", e);
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException(cmd, "cannot read " + what + ": " + Errors.describe(e), e);
    }
    Map<String, String> entries = new TreeMap<>();
    for (String name : p.stringPropertyNames()) {
      entries.put(name, p.getProperty(name));
    }
    return entries;
  }

  private static void put(
      ConfigKeyRegistry registry,
      Map<String, String> entries,
      List<String> problems,
      String source,
      String name,
      String value) {
    ConfigKey<?> key = registry.key(name);
    if (key == null) {
      String suggestion = closest(registry, name);
      problems.add(
          "unknown configuration key '"
              + name
              + "' "
              + source
              + (suggestion == null ? "" : "; did you mean '" + suggestion + "'?"));
      return;
    }
    try {
      key.parse(value);
    } catch (IllegalArgumentException e) {
      problems.add(String.valueOf(e.getMessage()).replace('\n', ' ') + " (" + source + ")");
      return;
    }
    entries.put(name, value);
  }

  /** The declared key closest to a misspelt {@code name}, or null if none is close. */
  static @Nullable String closest(ConfigKeyRegistry registry, String name) {
    String best = null;
    int bestDistance = Math.max(2, name.length() / 8) + 1;
    for (String candidate : registry.keys().keySet()) {
      int d = distance(name, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  /** The Levenshtein distance between two strings. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
