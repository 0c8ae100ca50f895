package io.braidfs.cli;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.time.Duration;
import java.util.List;

/**
 * Where a {@code braid} server process writes its log files and how they rotate (component {@code
 * log}); {@link ServerLogs} hands them to the logging configuration. Registered for {@link
 * java.util.ServiceLoader}; listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class LogConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> DIR =
      ConfigKey.string(
          "braid.log.dir",
          "",
          "Directory where braid mds, dataserver, zk, bookie and local write rotating log files:"
              + " braid-NAME.log, NAME being the role and server id (mds-1, dataserver-ds1), and"
              + " where an MDS runs its audit log braid-NAME-audit.log; only warnings and errors"
              + " still go to stderr. Created if missing. Empty: logs go to stderr and the audit"
              + " log is off. bin/braid's environment variable BRAID_LOG_DIR sets it too.");

  public static final ConfigKey<DataSize> MAX_FILE_SIZE =
      ConfigKey.dataSize(
          "braid.log.max-file-size",
          DataSize.ofMiB(100),
          DataSize.ofKiB(1),
          null,
          "A log file is rolled over (compressed, as braid-NAME.log.DATE.I.gz) when it reaches"
              + " this size, and at midnight.");

  public static final ConfigKey<Duration> MAX_AGE =
      ConfigKey.duration(
          "braid.log.max-age",
          Duration.ofDays(30),
          Duration.ofDays(1),
          null,
          "Rolled-over log files are deleted once this old (in whole days, rounded down).");

  public static final ConfigKey<DataSize> TOTAL_SIZE_CAP =
      ConfigKey.dataSize(
          "braid.log.total-size-cap",
          DataSize.ofGiB(2),
          DataSize.ofKiB(1),
          null,
          "Most bytes the rolled-over files of one log may take (the log and the audit log each);"
              + " the oldest are deleted first. At least braid.log.max-file-size.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(DIR, MAX_FILE_SIZE, MAX_AGE, TOTAL_SIZE_CAP);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public LogConfigKeys() {}

  @Override
  public String component() {
    return "log";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
