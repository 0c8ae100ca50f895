package io.braidfs.common.config;

import java.time.Duration;
import java.util.List;

/** A small key set for tests; deliberately not registered with ServiceLoader. */
final class TestKeys implements ConfigKeySet {
  enum Mode {
    FAST,
    SAFE
  }

  static final ConfigKey<DataSize> SIZE =
      ConfigKey.dataSize(
          "braid.test.buffer.size",
          DataSize.ofKiB(64),
          DataSize.ofKiB(1),
          DataSize.ofMiB(1),
          "Buffer size.");
  static final ConfigKey<Integer> COUNT =
      ConfigKey.integer("braid.test.count", 3, 1, 10, "How many | at most 10.");
  static final ConfigKey<Duration> TIMEOUT =
      ConfigKey.duration("braid.test.timeout", Duration.ofSeconds(30), "Timeout.");
  static final ConfigKey<Mode> MODE = ConfigKey.enumKey("braid.test.mode", Mode.SAFE, "Mode.");
  static final ConfigKey<List<String>> HOSTS =
      ConfigKey.stringList("braid.test.hosts", List.of(), "Hosts.");

  @Override
  public String component() {
    return "test";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return List.of(TIMEOUT, SIZE, COUNT, MODE, HOSTS);
  }

  static ConfigKeyRegistry registry() {
    return ConfigKeyRegistry.of(List.of(new TestKeys()));
  }
}
