package io.braidfs.fuse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Numeric ids of this machine and the names Braid keeps. Braid stores owners by name (as HDFS does)
 * and a FUSE request carries the caller's numeric uid and gid, so the mount translates with the
 * local account database: {@code /etc/passwd} and {@code /etc/group}, read when the mount starts
 * and again (at most every ten seconds) when an unknown id or name is met.
 *
 * <p>An id without a local name is sent as its decimal string ("1234"); a stored name without a
 * local id shows as {@link #NOBODY} (65534), never as root.
 *
 * <p>Thread-safety: thread-safe; the tables are replaced whole under the monitor.
 */
final class Identities {
  /** The overflow id (nobody/nogroup) shown for names this machine does not know. */
  static final int NOBODY = 65534;

  private static final long RELOAD_NANOS = 10_000_000_000L;

  private final Path passwd;
  private final Path group;
  private Tables tables;
  private long loadedAt;

  private record Tables(
      Map<Integer, String> userById,
      Map<String, Integer> idByUser,
      Map<Integer, String> groupById,
      Map<String, Integer> idByGroup,
      Map<Integer, Integer> primaryGid,
      Map<String, List<String>> groupsOfUser) {}

  Identities() {
    this(Path.of("/etc/passwd"), Path.of("/etc/group"));
  }

  Identities(Path passwd, Path group) {
    this.passwd = passwd;
    this.group = group;
    this.tables = load(passwd, group);
    this.loadedAt = System.nanoTime();
  }

  /** The user name of {@code uid}, or its decimal string. */
  String userName(int uid) {
    String n = tables(t -> t.userById.get(uid)).userById.get(uid);
    return n != null ? n : Integer.toUnsignedString(uid);
  }

  /** The group name of {@code gid}, or its decimal string. */
  String groupName(int gid) {
    String n = tables(t -> t.groupById.get(gid)).groupById.get(gid);
    return n != null ? n : Integer.toUnsignedString(gid);
  }

  /** The uid of {@code user}; a decimal name is taken as the id; else {@link #NOBODY}. */
  int uid(String user) {
    Integer id = tables(t -> t.idByUser.get(user)).idByUser.get(user);
    return id != null ? id : numeric(user);
  }

  /** The gid of {@code groupName}; a decimal name is taken as the id; else {@link #NOBODY}. */
  int gid(String groupName) {
    Integer id = tables(t -> t.idByGroup.get(groupName)).idByGroup.get(groupName);
    return id != null ? id : numeric(groupName);
  }

  /**
   * The groups a request of ({@code uid}, {@code gid}) acts with: the request's group first, then
   * the user's primary and supplementary groups, as names.
   */
  List<String> groups(int uid, int gid) {
    Tables t = tables(x -> x.userById.get(uid));
    Set<String> out = new LinkedHashSet<>();
    out.add(groupName(gid));
    Integer primary = t.primaryGid.get(uid);
    if (primary != null) {
      out.add(groupName(primary));
    }
    String user = t.userById.get(uid);
    if (user != null) {
      out.addAll(t.groupsOfUser.getOrDefault(user, List.of()));
    }
    return List.copyOf(out);
  }

  private static int numeric(String name) {
    try {
      return Integer.parseUnsignedInt(name);
    } catch (NumberFormatException e) {
      return NOBODY;
    }
  }

  private interface Probe {
    /** What the request looks for, or null if the tables do not have it. */
    @Nullable Object find(Tables t);
  }

  /** The tables, reloaded first if {@code probe} finds nothing and they are older than 10 s. */
  private synchronized Tables tables(Probe probe) {
    if (probe.find(tables) == null && System.nanoTime() - loadedAt > RELOAD_NANOS) {
      tables = load(passwd, group);
      loadedAt = System.nanoTime();
    }
    return tables;
  }

  private static Tables load(Path passwd, Path group) {
    Map<Integer, String> userById = new HashMap<>();
    Map<String, Integer> idByUser = new HashMap<>();
    Map<Integer, Integer> primary = new HashMap<>();
    for (String[] f : lines(passwd)) {
      if (f.length < 4) {
        continue;
      }
      try {
        int uid = Integer.parseInt(f[2]);
        userById.putIfAbsent(uid, f[0]);
        idByUser.putIfAbsent(f[0], uid);
        primary.putIfAbsent(uid, Integer.parseInt(f[3]));
      } catch (NumberFormatException e) {
        // a malformed line: skipped, as getpwent(3) does
      }
    }
    Map<Integer, String> groupById = new HashMap<>();
    Map<String, Integer> idByGroup = new HashMap<>();
    Map<String, List<String>> groupsOfUser = new HashMap<>();
    for (String[] f : lines(group)) {
      if (f.length < 3) {
        continue;
      }
      try {
        int gid = Integer.parseInt(f[2]);
        groupById.putIfAbsent(gid, f[0]);
        idByGroup.putIfAbsent(f[0], gid);
      } catch (NumberFormatException e) {
        continue;
      }
      if (f.length > 3 && !f[3].isEmpty()) {
        for (String member : f[3].split(",")) {
          groupsOfUser.computeIfAbsent(member, k -> new ArrayList<>()).add(f[0]);
        }
      }
    }
    return new Tables(userById, idByUser, groupById, idByGroup, primary, groupsOfUser);
  }

  private static List<String[]> lines(Path file) {
    List<String[]> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank() && !line.startsWith("#")) {
          out.add(line.split(":", -1));
        }
      }
    } catch (IOException e) {
      // No local account database: every id goes by its number.
    }
    return out;
  }
}
