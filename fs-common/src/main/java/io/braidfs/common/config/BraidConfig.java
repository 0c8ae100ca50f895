package io.braidfs.common.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable set of configuration values, read through typed {@link ConfigKey}s.
 *
 * <p>Build one from {@link Properties} ({@link #fromProperties}), a {@code Map} ({@link #fromMap})
 * or a {@link #builder()}. Only entries whose name starts with {@code braid.} are kept; others (a
 * {@code Properties} object often holds unrelated settings) are ignored. Every kept entry whose key
 * is declared by a {@link ConfigKeySet} of the {@link ConfigKeyRegistry} is parsed at construction,
 * so a bad value fails fast with an {@link IllegalArgumentException} naming the key, the value and
 * what was expected, before any component starts. Entries no set declares are kept and reported by
 * {@link #unknownKeys()}, which callers log as a warning (a misspelt key is otherwise silently
 * ignored).
 *
 * <p>{@link #get(ConfigKey)} returns the parsed value or the key's default. {@link
 * #describeEffective()} renders every declared key with its effective value for the single INFO log
 * line a component writes on start.
 *
 * <p>This and the other classes of this package are the only code that reads raw configuration
 * strings; components take a {@code BraidConfig} (or their own typed config built from one).
 *
 * <p>Thread-safety: immutable; safe to share between threads.
 */
public final class BraidConfig {
  private static final String PREFIX = "braid.";

  private final ConfigKeyRegistry registry;

  /** Every {@code braid.*} entry as given, sorted by name. */
  private final Map<String, String> raw;

  /** The parsed values of the entries whose key the registry declares. */
  private final Map<String, Object> parsed;

  private BraidConfig(ConfigKeyRegistry registry, Map<String, String> entries) {
    this.registry = registry;
    Map<String, String> kept = new TreeMap<>();
    Map<String, Object> values = new HashMap<>();
    List<String> errors = new ArrayList<>();
    entries.forEach(
        (name, value) -> {
          Objects.requireNonNull(name, "config key name");
          Objects.requireNonNull(value, name);
          if (!name.startsWith(PREFIX)) {
            return;
          }
          kept.put(name, value);
          ConfigKey<?> key = registry.key(name);
          if (key != null) {
            try {
              values.put(name, key.parse(value));
            } catch (IllegalArgumentException e) {
              errors.add(e.getMessage());
            }
          }
        });
    if (!errors.isEmpty()) {
      Collections.sort(errors);
      throw new IllegalArgumentException(
          errors.size() == 1
              ? "invalid configuration: " + errors.get(0)
              : "invalid configuration, "
                  + errors.size()
                  + " errors:\n  "
                  + String.join("\n  ", errors));
    }
    this.raw = Collections.unmodifiableMap(kept);
    this.parsed = values;
  }

  /** A configuration with nothing set: every key has its default. */
  public static BraidConfig defaults() {
    return new BraidConfig(ConfigKeyRegistry.discover(), Map.of());
  }

  /**
   * The configuration in {@code properties} (including its defaults), against the key sets on the
   * classpath. Entries that are not strings are ignored.
   *
   * @throws IllegalArgumentException if a declared key has an invalid value; the message names
   *     every such key
   */
  public static BraidConfig fromProperties(Properties properties) {
    return fromProperties(properties, ConfigKeyRegistry.discover());
  }

  /**
   * As {@link #fromProperties(Properties)}, against an explicit registry.
   *
   * @throws IllegalArgumentException if a declared key has an invalid value
   */
  public static BraidConfig fromProperties(Properties properties, ConfigKeyRegistry registry) {
    Map<String, String> entries = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      entries.put(name, properties.getProperty(name));
    }
    return new BraidConfig(registry, entries);
  }

  /**
   * The configuration in {@code entries}, against the key sets on the classpath.
   *
   * @throws IllegalArgumentException if a declared key has an invalid value; the message names
   *     every such key
   * @throws NullPointerException if a name or value is null
   */
  public static BraidConfig fromMap(Map<String, String> entries) {
    return fromMap(entries, ConfigKeyRegistry.discover());
  }

  /**
   * As {@link #fromMap(Map)}, against an explicit registry.
   *
   * @throws IllegalArgumentException if a declared key has an invalid value
   */
  public static BraidConfig fromMap(Map<String, String> entries, ConfigKeyRegistry registry) {
    return new BraidConfig(registry, entries);
  }

  /** A builder starting from nothing set, against the key sets on the classpath. */
  public static Builder builder() {
    return new Builder(ConfigKeyRegistry.discover(), Map.of());
  }

  /** A builder starting from nothing set, against an explicit registry. */
  public static Builder builder(ConfigKeyRegistry registry) {
    return new Builder(registry, Map.of());
  }

  /** A builder starting from this configuration's entries and registry. */
  public Builder toBuilder() {
    return new Builder(registry, raw);
  }

  /**
   * The value of {@code key}: the configured value if set, otherwise the key's default.
   *
   * <p>Keys declared in the registry were parsed at construction, so this never fails for them. A
   * key that no registered set declares (a test key, say) is parsed on each call.
   *
   * @throws IllegalArgumentException only for an undeclared key whose configured value is invalid
   */
  public <T> T get(ConfigKey<T> key) {
    if (registry.key(key.name()) == key) {
      @SuppressWarnings("unchecked") // parsed by this very key at construction
      T value = (T) parsed.get(key.name());
      return value != null ? value : key.defaultValue();
    }
    String value = raw.get(key.name());
    return value != null ? key.parse(value) : key.defaultValue();
  }

  /** Whether {@code key} is set explicitly (to any value, even its default). */
  public boolean isSet(ConfigKey<?> key) {
    return raw.containsKey(key.name());
  }

  /**
   * The {@code braid.*} names that are set but declared by no {@link ConfigKeySet} in the registry,
   * sorted. Callers log them as a warning: they are usually misspellings.
   */
  public SortedSet<String> unknownKeys() {
    SortedSet<String> unknown = new TreeSet<>();
    for (String name : raw.keySet()) {
      if (registry.key(name) == null) {
        unknown.add(name);
      }
    }
    return Collections.unmodifiableSortedSet(unknown);
  }

  /**
   * Every declared key with its effective value (set or default), one {@code key=value} line per
   * key, sorted by key and joined with {@code \n}, for the one INFO log a component writes on
   * start. Unknown keys are not included; see {@link #unknownKeys()}.
   */
  public String describeEffective() {
    StringBuilder sb = new StringBuilder();
    for (ConfigKey<?> key : registry.keys().values()) {
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append(key.name()).append('=').append(effective(key));
    }
    return sb.toString();
  }

  private <T> String effective(ConfigKey<T> key) {
    return key.format(get(key));
  }

  /** The names set explicitly, sorted; the values are not shown (they may one day hold secrets). */
  @Override
  public String toString() {
    return "BraidConfig" + raw.keySet();
  }

  /**
   * Collects entries for a {@link BraidConfig}. Typed values are checked when set; raw strings are
   * parsed by {@link #build()}.
   *
   * <p>Thread-safety: not thread-safe; confine a builder to one thread.
   */
  public static final class Builder {
    private final ConfigKeyRegistry registry;
    private final Map<String, String> entries;

    private Builder(ConfigKeyRegistry registry, Map<String, String> entries) {
      this.registry = registry;
      this.entries = new TreeMap<>(entries);
    }

    /**
     * Sets {@code key} to {@code value}.
     *
     * @throws IllegalArgumentException if {@code value} is out of the key's range; the message
     *     names the key
     */
    public <T> Builder set(ConfigKey<T> key, T value) {
      entries.put(key.name(), key.format(value));
      return this;
    }

    /**
     * Sets a raw entry, as if read from a properties file; it is parsed by {@link #build()}. Names
     * outside {@code braid.*} are ignored by the built configuration.
     */
    public Builder set(String name, String rawValue) {
      entries.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(rawValue, name));
      return this;
    }

    /** Sets every entry of {@code more}, replacing entries with the same name. */
    public Builder setAll(Map<String, String> more) {
      more.forEach(this::set);
      return this;
    }

    /** Removes {@code key}, so that its default applies. */
    public Builder unset(ConfigKey<?> key) {
      entries.remove(key.name());
      return this;
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException if a raw entry of a declared key is invalid
     */
    public BraidConfig build() {
      return new BraidConfig(registry, entries);
    }
  }
}
