package io.braidfs.cli;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the {@code braid fs} commands themselves (component {@code fs}), read from the client
 * configuration they already load ({@code --conf}, {@code -D}). Registered for {@link
 * java.util.ServiceLoader}; listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class FsConfigKeys implements ConfigKeySet {
  /** How long trashed files stay; zero turns the trash off (HDFS's {@code fs.trash.interval}). */
  public static final ConfigKey<Duration> TRASH_INTERVAL =
      ConfigKey.duration(
          "braid.fs.trash.interval",
          Duration.ZERO,
          "How long braid fs rm keeps what it removes in /user/USER/.Trash/Current (rm -skipTrash"
              + " deletes at once), as HDFS's fs.trash.interval (minutes there; here a duration, such"
              + " as 1440m or 1d): braid fs expunge checkpoints Current and deletes checkpoints"
              + " older than this. 0: no trash, rm deletes.");

  private static final List<ConfigKey<?>> KEYS = List.of(TRASH_INTERVAL);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public FsConfigKeys() {}

  @Override
  public String component() {
    return "fs";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
