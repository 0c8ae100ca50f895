package io.braidfs.fuse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The supplementary groups of the process behind a FUSE request. A request carries only the
 * caller's uid, gid and pid, while Linux checks chown, chgrp and group permissions against every
 * group of the process (which setgroups(2) may have set to anything), so the mount reads them from
 * {@code /proc/PID/status}. A process's groups change rarely (at login, su, sudo, before exec), so
 * they are kept per pid for a second: a pid reused within that second by a process of other groups
 * is the only case that sees stale groups.
 *
 * <p>Thread-safety: thread-safe.
 */
final class CallerGroups {
  private static final long KEEP_NANOS = 1_000_000_000L;
  private static final int MAX_ENTRIES = 4096;

  private final Path proc;
  private final Map<Integer, Entry> byPid = new ConcurrentHashMap<>();

  private record Entry(int @Nullable [] groups, long readAt) {}

  CallerGroups() {
    this(Path.of("/proc"));
  }

  CallerGroups(Path proc) {
    this.proc = proc;
  }

  /**
   * The supplementary group ids of process {@code pid}, sorted, or null if they cannot be read (no
   * pid, the process is gone, no /proc): the caller then falls back to the account database.
   */
  int @Nullable [] of(int pid) {
    if (pid <= 0) {
      return null;
    }
    long now = System.nanoTime();
    Entry e = byPid.get(pid);
    if (e != null && now - e.readAt < KEEP_NANOS) {
      return e.groups;
    }
    int[] groups = read(pid);
    if (byPid.size() >= MAX_ENTRIES) {
      byPid.clear(); // a burst of short-lived processes: start over rather than track ages
    }
    byPid.put(pid, new Entry(groups, now));
    return groups;
  }

  private int @Nullable [] read(int pid) {
    String status;
    try {
      status =
          Files.readString(
              proc.resolve(Integer.toString(pid)).resolve("status"), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    for (String line : status.split("\n")) {
      if (line.startsWith("Groups:")) {
        String rest = line.substring("Groups:".length()).strip();
        if (rest.isEmpty()) {
          return new int[0];
        }
        String[] parts = rest.split("\\s+");
        int[] ids = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
          ids[i] = Integer.parseUnsignedInt(parts[i]);
        }
        Arrays.sort(ids);
        return ids;
      }
    }
    return null;
  }
}
