package io.braidfs.common.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's groups as a server sees them, so that an authenticated client cannot claim groups: the
 * static list of {@code braid.security.groups} first, else what the operating system lists for that
 * name ({@code id -Gn}, as HDFS's shell-based mapping), else none. Answers from the system are kept
 * for five minutes.
 *
 * <p>Thread-safety: thread-safe.
 */
final class GroupLookup {
  private static final Logger LOG = LoggerFactory.getLogger(GroupLookup.class);
  private static final long KEEP_NANOS = TimeUnit.MINUTES.toNanos(5);
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9._][A-Za-z0-9._-]*");

  /** Users whose system groups are kept at most; beyond, the oldest answers are forgotten. */
  private static final int MAX_KEPT = 10_000;

  private record Entry(List<String> groups, long atNanos) {}

  private final Map<String, List<String>> fixed;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Entry> fromSystem = new ConcurrentHashMap<>();

  private GroupLookup(Map<String, List<String>> fixed, LongSupplier nanoTime) {
    this.fixed = Map.copyOf(fixed);
    this.nanoTime = nanoTime;
  }

  /**
   * Parses {@code user=g1,g2;user2=g3}.
   *
   * @throws IllegalArgumentException naming an entry that is not {@code user=groups}
   */
  static GroupLookup parse(String spec) {
    Map<String, List<String>> fixed = new HashMap<>();
    for (String entry : spec.split(";")) {
      if (entry.isBlank()) {
        continue;
      }
      int eq = entry.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "braid.security.groups: '" + entry.trim() + "' is not user=group1,group2");
      }
      List<String> groups = new ArrayList<>();
      for (String g : entry.substring(eq + 1).split(",")) {
        if (!g.isBlank()) {
          groups.add(g.trim());
        }
      }
      fixed.put(entry.substring(0, eq).trim(), groups);
    }
    return new GroupLookup(fixed, System::nanoTime);
  }

  /** {@code user}'s groups, primary first; empty if nothing lists any. */
  List<String> groupsOf(String user) {
    List<String> listed = fixed.get(user);
    if (listed != null) {
      return listed;
    }
    Entry e = fromSystem.get(user);
    long now = nanoTime.getAsLong();
    if (e == null || now - e.atNanos() > KEEP_NANOS) {
      e = new Entry(system(user), now);
      if (fromSystem.size() >= MAX_KEPT) {
        fromSystem.clear(); // rare: more distinct users than any cluster has; start over
      }
      fromSystem.put(user, e);
    }
    return e.groups();
  }

  private static List<String> system(String user) {
    if (!USER.matcher(user).matches()) {
      return List.of();
    }
    try {
      Process p = new ProcessBuilder("id", "-Gn", "--", user).redirectErrorStream(false).start();
      // id's answer is one short line, well within a pipe's buffer: wait first, then read, so a
      // hung lookup (a directory service down) costs at most the wait.
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        LOG.warn("id -Gn {} did not answer within 5 s; no groups", user);
        return List.of();
      }
      if (p.exitValue() != 0) {
        return List.of(); // no such user on this host
      }
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      String text = new String(out, StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\s+"));
    } catch (IOException e) {
      LOG.warn("cannot list the groups of {}: {}", user, e.toString());
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }
}
