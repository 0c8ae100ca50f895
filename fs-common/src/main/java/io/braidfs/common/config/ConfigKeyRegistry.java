package io.braidfs.common.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * All declared configuration keys, by name, from a list of {@link ConfigKeySet}s: usually the ones
 * on the classpath ({@link #discover()}), or an explicit list in tests.
 *
 * <p>Construction checks the declarations: every key of a set named {@code c} starts with {@code
 * braid.c.} and no key name is declared twice. A component may spread its keys over several sets
 * (one per area, such as the MDS's store, cluster and lease keys).
 *
 * <p>Thread-safety: immutable.
 */
public final class ConfigKeyRegistry {
  /** The classpath's registry, loaded on first use rather than when this class loads. */
  private static volatile @Nullable ConfigKeyRegistry discovered;

  private final List<ConfigKeySet> keySets;
  private final Map<String, ConfigKey<?>> byName;

  private ConfigKeyRegistry(List<ConfigKeySet> keySets, Map<String, ConfigKey<?>> byName) {
    this.keySets = keySets;
    this.byName = byName;
  }

  /**
   * The registry of every {@link ConfigKeySet} visible to {@link java.util.ServiceLoader} through
   * the class loader that loaded this class. The classpath is scanned once; later calls return the
   * same registry.
   *
   * @throws IllegalStateException if the discovered sets conflict (see {@link #of(List)})
   * @throws java.util.ServiceConfigurationError if a registered set cannot be instantiated
   */
  public static ConfigKeyRegistry discover() {
    ConfigKeyRegistry r = discovered;
    if (r == null) {
      // Two threads may both scan; the results are equal and either may be kept.
      r = load();
      discovered = r;
    }
    return r;
  }

  private static ConfigKeyRegistry load() {
    List<ConfigKeySet> sets = new ArrayList<>();
    ServiceLoader.load(ConfigKeySet.class, ConfigKeyRegistry.class.getClassLoader())
        .forEach(sets::add);
    return of(sets);
  }

  /**
   * A registry of exactly these sets.
   *
   * @throws IllegalStateException if a key does not belong to its set's component, or a key name is
   *     declared twice
   */
  public static ConfigKeyRegistry of(List<? extends ConfigKeySet> sets) {
    List<ConfigKeySet> sorted = new ArrayList<>(sets);
    sorted.sort(Comparator.comparing(ConfigKeySet::component));
    Map<String, ConfigKey<?>> byName = new TreeMap<>();
    for (ConfigKeySet set : sorted) {
      String component = set.component();
      String prefix = "braid." + component + ".";
      for (ConfigKey<?> key : set.keys()) {
        if (!key.name().startsWith(prefix)) {
          throw new IllegalStateException(
              set.getClass().getName()
                  + " declares "
                  + key.name()
                  + " outside its component; expected a name starting with "
                  + prefix);
        }
        if (byName.putIfAbsent(key.name(), key) != null) {
          throw new IllegalStateException("config key " + key.name() + " declared twice");
        }
      }
    }
    return new ConfigKeyRegistry(
        Collections.unmodifiableList(sorted), Collections.unmodifiableMap(byName));
  }

  /** The key sets, sorted by component. */
  public List<ConfigKeySet> keySets() {
    return keySets;
  }

  /** Every declared key by name, sorted by name. */
  public Map<String, ConfigKey<?>> keys() {
    return byName;
  }

  /** The declared key with this name, or null if no set declares it. */
  public @Nullable ConfigKey<?> key(String name) {
    return byName.get(name);
  }
}
