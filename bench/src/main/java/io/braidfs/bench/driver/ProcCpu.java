package io.braidfs.bench.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time a process has used, user and system, from Linux's {@code /proc/PID/stat}: so an
 * experiment can say how much of a shared machine each of its processes took.
 *
 * <p>Thread-safety: stateless.
 */
final class ProcCpu {
  /** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux the driver runs on. */
  private static final long TICKS_PER_SECOND = 100;

  private ProcCpu() {}

  /**
   * CPU nanoseconds (user + system) process {@code pid} has used so far, at tick resolution (10
   * ms); -1 if it is gone or this is not Linux.
   */
  static long nanos(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return -1;
    }
    // The command name, field 2, is in parentheses and may hold spaces: count from its end.
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return -1;
    }
    String[] f = stat.substring(close + 2).trim().split(" ");
    // f[0] is field 3 (state); utime and stime are fields 14 and 15.
    if (f.length < 13) {
      return -1;
    }
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return ticks * (1_000_000_000L / TICKS_PER_SECOND);
  }
}
