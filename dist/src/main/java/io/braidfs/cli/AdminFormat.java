package io.braidfs.cli;

import io.braidfs.client.ClusterReport;
import io.braidfs.client.FsckFile;
import io.braidfs.client.FsckReport;
import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsRole;
import io.braidfs.client.MdsStatus;
import io.braidfs.client.ServerReport;
import io.braidfs.common.error.StatusException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How {@code braid admin} shows what the MDS answered: for people, tables and labelled totals with
 * sizes in binary units; for scripts ({@code --json}), one JSON object per answer whose names are
 * those of the protocol's fields (mds.proto, AdminService) with sizes in bytes and times in
 * milliseconds.
 *
 * <p>Thread-safety: stateless.
 */
final class AdminFormat {
  /** A heartbeat this long ago means none was ever heard (the protocol's largest value). */
  private static final Duration NEVER = Duration.ofDays(365L * 100);

  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private AdminFormat() {}

  /** {@code braid admin fsck}'s exit code: 1 when a chunk is missing or corrupt, else 0. */
  static int fsckExitCode(FsckReport r) {
    return r.hasUnreadableData() ? Braid.EXIT_FAILURE : Braid.EXIT_OK;
  }

  /**
   * fsck of {@code path} for people: the files listed, one per line under a header, then the
   * totals.
   */
  static List<String> fsck(String path, FsckReport r) {
    List<String> lines = new ArrayList<>();
    if (!r.entries().isEmpty()) {
      List<List<String>> rows = new ArrayList<>();
      rows.add(
          List.of(
              "HEALTH", "REPL", "LENGTH", "CHUNKS", "UNDER", "CORRUPT", "MISSING", "OPEN", "PATH"));
      for (FsckFile f : r.entries()) {
        rows.add(
            List.of(
                f.health().name(),
                Integer.toString(f.replication()),
                Long.toString(f.length()),
                Long.toString(f.chunks()),
                Long.toString(f.underReplicatedChunks()),
                Long.toString(f.corruptChunks()),
                Long.toString(f.missingChunks()),
                f.openForWrite() ? "yes" : "no",
                f.path()));
      }
      lines.addAll(FsFormat.table(rows, 1, 2, 3, 4, 5, 6));
      if (r.truncated()) {
        lines.add("(more files qualified than were listed; see --max-files)");
      }
      lines.add("");
    }
    List<List<String>> totals = new ArrayList<>();
    totals.add(List.of("Path:", path));
    totals.add(List.of("Health:", r.health().name()));
    totals.add(
        List.of(
            "Files:",
            r.files()
                + " ("
                + r.healthyFiles()
                + " healthy, "
                + r.underReplicatedFiles()
                + " under-replicated, "
                + r.corruptFiles()
                + " corrupt, "
                + r.missingFiles()
                + " missing)"));
    totals.add(List.of("Directories:", Long.toString(r.directories())));
    totals.add(
        List.of(
            "Chunks:",
            r.chunks()
                + " ("
                + r.underReplicatedChunks()
                + " under-replicated, "
                + r.corruptChunks()
                + " corrupt, "
                + r.missingChunks()
                + " missing)"));
    totals.add(List.of("Repair queue:", Long.toString(r.repairQueue())));
    totals.add(
        List.of(
            "Safe mode:",
            r.safeMode()
                ? "on (data servers still reporting: chunks may show as missing)"
                : "off"));
    lines.addAll(labelled(totals));
    return lines;
  }

  /** fsck of {@code path} as one JSON object. */
  static String fsckJson(String path, FsckReport r) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("path", path);
    o.put("health", r.health().name());
    o.put("files", r.files());
    o.put("directories", r.directories());
    o.put("chunks", r.chunks());
    o.put("healthy_files", r.healthyFiles());
    o.put("under_replicated_files", r.underReplicatedFiles());
    o.put("corrupt_files", r.corruptFiles());
    o.put("missing_files", r.missingFiles());
    o.put("under_replicated_chunks", r.underReplicatedChunks());
    o.put("corrupt_chunks", r.corruptChunks());
    o.put("missing_chunks", r.missingChunks());
    List<Object> entries = new ArrayList<>();
    for (FsckFile f : r.entries()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("path", f.path());
      e.put("health", f.health().name());
      e.put("replication", f.replication());
      e.put("length", f.length());
      e.put("chunks", f.chunks());
      e.put("under_replicated_chunks", f.underReplicatedChunks());
      e.put("corrupt_chunks", f.corruptChunks());
      e.put("missing_chunks", f.missingChunks());
      e.put("open_for_write", f.openForWrite());
      entries.add(e);
    }
    o.put("entries", entries);
    o.put("truncated", r.truncated());
    o.put("repair_queue", r.repairQueue());
    o.put("safe_mode", r.safeMode());
    return Json.write(o);
  }

  /** The cluster report for people: a table of every data server, then the totals. */
  static List<String> report(ClusterReport r) {
    List<String> lines = new ArrayList<>();
    if (r.servers().isEmpty()) {
      lines.add("(no data server has registered)");
    } else {
      List<List<String>> rows = new ArrayList<>();
      rows.add(
          List.of(
              "ID",
              "ADDRESS",
              "RACK",
              "LIVE",
              "STATE",
              "CAPACITY",
              "USED",
              "AVAILABLE",
              "REPLICAS",
              "LAST HEARTBEAT",
              "FAILED DIRS",
              "COPIES"));
      for (ServerReport s : r.servers()) {
        rows.add(
            List.of(
                Integer.toUnsignedString(s.serverId()),
                s.address(),
                s.rack().isEmpty() ? "-" : s.rack(),
                s.live() ? "live" : "dead",
                s.state().name(),
                bytes(s.capacityBytes()),
                bytes(s.usedBytes()),
                bytes(s.availableBytes()),
                Long.toString(s.replicas()),
                s.sinceHeartbeat().compareTo(NEVER) >= 0
                    ? "never"
                    : ago(s.sinceHeartbeat()) + " ago",
                s.failedDataDirs() + "/" + s.dataDirs(),
                Integer.toString(s.copiesInFlight())));
      }
      lines.addAll(FsFormat.table(rows, 0, 5, 6, 7, 8, 9, 10, 11));
    }
    lines.add("");
    List<List<String>> totals = new ArrayList<>();
    totals.add(List.of("Data servers:", r.liveServers() + " live, " + r.deadServers() + " dead"));
    totals.add(List.of("Capacity:", bytesExact(r.capacityBytes())));
    totals.add(List.of("Used:", bytesExact(r.usedBytes())));
    totals.add(List.of("Available:", bytesExact(r.availableBytes())));
    totals.add(
        List.of(
            "Repair queue:",
            r.repairQueue() + " waiting, " + r.copiesInFlight() + " copies in flight"));
    totals.add(
        List.of(
            "Safe mode:",
            r.safeMode() ? "on (" + ago(r.safeModeRemaining()) + " left at most)" : "off"));
    lines.addAll(labelled(totals));
    return lines;
  }

  /** The cluster report as one JSON object. */
  static String reportJson(ClusterReport r) {
    Map<String, Object> o = new LinkedHashMap<>();
    List<Object> servers = new ArrayList<>();
    for (ServerReport s : r.servers()) {
      servers.add(server(s));
    }
    o.put("servers", servers);
    o.put("capacity_bytes", r.capacityBytes());
    o.put("used_bytes", r.usedBytes());
    o.put("available_bytes", r.availableBytes());
    o.put("live_servers", r.liveServers());
    o.put("dead_servers", r.deadServers());
    o.put("repair_queue", r.repairQueue());
    o.put("copies_in_flight", r.copiesInFlight());
    o.put("safe_mode", r.safeMode());
    o.put("safe_mode_remaining_ms", r.safeModeRemaining().toMillis());
    return Json.write(o);
  }

  private static Map<String, Object> server(ServerReport s) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("server_id", Integer.toUnsignedLong(s.serverId()));
    o.put("host", s.host());
    o.put("port", s.port());
    o.put("rack", s.rack());
    o.put("live", s.live());
    o.put("state", s.state().name());
    o.put("capacity_bytes", s.capacityBytes());
    o.put("used_bytes", s.usedBytes());
    o.put("available_bytes", s.availableBytes());
    o.put("replicas", s.replicas());
    o.put("last_heartbeat_ms", s.sinceHeartbeat().toMillis());
    o.put("failed_data_dirs", s.failedDataDirs());
    o.put("data_dirs", s.dataDirs());
    o.put("copies_in_flight", s.copiesInFlight());
    return o;
  }

  /** The MDSs that serve the namespace among the answers: LEADER, or a lone MDS (SINGLE). */
  static List<MdsStatus> leaders(List<MdsProbe.Answer> answers) {
    List<MdsStatus> out = new ArrayList<>();
    for (MdsProbe.Answer a : answers) {
      MdsStatus s = a.status();
      if (s != null && s.role().serves()) {
        out.add(s);
      }
    }
    return out;
  }

  /** The cluster ids the answers name (an MDS without one yet names none), in order. */
  private static Set<String> clusters(List<MdsProbe.Answer> answers) {
    Set<String> ids = new LinkedHashSet<>();
    for (MdsProbe.Answer a : answers) {
      MdsStatus s = a.status();
      if (s != null && !s.clusterId().isEmpty()) {
        ids.add(s.clusterId());
      }
    }
    return ids;
  }

  /**
   * {@code braid admin ha}'s exit code: 0 when exactly one MDS answered as the one serving the
   * namespace and no two name different clusters, else 1.
   */
  static int haExitCode(List<MdsProbe.Answer> answers) {
    return leaders(answers).size() == 1 && clusters(answers).size() <= 1
        ? Braid.EXIT_OK
        : Braid.EXIT_FAILURE;
  }

  /**
   * How many records {@code s} has yet to apply of those the one leader has, or null when that is
   * not known (no single leader) or not asked (it serves itself).
   */
  private static @Nullable Long behind(MdsStatus s, @Nullable MdsStatus leader) {
    if (leader == null || s.role().serves()) {
      return null;
    }
    return Math.max(0, leader.journalIndex() - s.journalIndex());
  }

  /**
   * The MDSs for people: a table of every address asked (replica, address, role, epoch, journal
   * index, records behind the leader), then who leads, the cluster, and why an MDS did not answer.
   */
  static List<String> ha(List<MdsProbe.Answer> answers) {
    List<MdsStatus> leaders = leaders(answers);
    MdsStatus leader = leaders.size() == 1 ? leaders.get(0) : null;
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("REPLICA", "ADDRESS", "ROLE", "EPOCH", "JOURNAL INDEX", "BEHIND"));
    for (MdsProbe.Answer a : answers) {
      MdsStatus s = a.status();
      if (s == null) {
        rows.add(List.of("-", a.address(), "no answer", "-", "-", "-"));
        continue;
      }
      Long b = behind(s, leader);
      rows.add(
          List.of(
              s.replicaId(),
              a.address(),
              s.role().name(),
              s.role().serves() ? Long.toUnsignedString(s.epoch()) : "-",
              Long.toUnsignedString(s.journalIndex()),
              b == null ? "-" : Long.toString(b)));
    }
    List<String> lines = new ArrayList<>(FsFormat.table(rows, 3, 4, 5));
    lines.add("");
    List<List<String>> notes = new ArrayList<>();
    if (leader != null) {
      notes.add(
          List.of(
              "Leader:",
              leader.replicaId()
                  + " at "
                  + leader.address()
                  + ", epoch "
                  + Long.toUnsignedString(leader.epoch())
                  + (leader.role() == MdsRole.SINGLE ? " (a lone MDS, no HA)" : "")));
    } else if (leaders.isEmpty()) {
      notes.add(List.of("Leader:", "none answered as leader"));
    } else {
      List<String> names = new ArrayList<>();
      leaders.forEach(l -> names.add(l.replicaId() + " at " + l.address()));
      notes.add(
          List.of("Leader:", leaders.size() + " answered as leader: " + String.join(", ", names)));
    }
    Set<String> clusters = clusters(answers);
    notes.add(
        List.of(
            "Cluster:",
            clusters.isEmpty()
                ? "none named"
                : clusters.size() == 1
                    ? clusters.iterator().next()
                    : "they differ: " + String.join(", ", clusters)));
    for (MdsProbe.Answer a : answers) {
      IOException e = a.failure();
      if (e != null) {
        notes.add(List.of("No answer:", a.address() + ": " + noAnswer(e)));
      }
    }
    lines.addAll(labelled(notes));
    return lines;
  }

  /** The MDSs as one JSON object: each address asked, what it said or why it did not. */
  static String haJson(List<MdsProbe.Answer> answers) {
    List<MdsStatus> leaders = leaders(answers);
    MdsStatus leader = leaders.size() == 1 ? leaders.get(0) : null;
    List<Object> replicas = new ArrayList<>();
    for (MdsProbe.Answer a : answers) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("mds", a.address());
      MdsStatus s = a.status();
      IOException e = a.failure();
      o.put("answered", s != null);
      if (s != null) {
        o.put("replica_id", s.replicaId());
        o.put("address", s.address());
        o.put("role", s.role().name());
        o.put("epoch", s.epoch());
        o.put("journal_index", s.journalIndex());
        o.put("behind_leader", behind(s, leader));
        o.put("leader_hint", s.leaderHint());
        o.put("cluster_id", s.clusterId());
      } else if (e != null) {
        o.put("error", noAnswer(e));
      }
      replicas.add(o);
    }
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("replicas", replicas);
    o.put("leaders", leaders.size());
    o.put("leader", leader == null ? null : leader.address());
    o.put("cluster_ids", new ArrayList<Object>(clusters(answers)));
    return Json.write(o);
  }

  /** Why an MDS did not answer, on one line: its status and message. */
  static String noAnswer(IOException e) {
    String m = e.getMessage();
    String text =
        m == null || m.isBlank()
            ? e.getClass().getSimpleName()
            : m.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
    return e instanceof StatusException se ? se.status().name() + ": " + text : text;
  }

  /** A leader as the failover commands print it: {@code mds-2 at 10.0.0.2:7400, epoch 4}. */
  static String leaderLine(MdsStatus s) {
    return s.replicaId() + " at " + s.address() + ", epoch " + Long.toUnsignedString(s.epoch());
  }

  /**
   * One data server on one line, as the state commands print it: {@code data server 3
   * (10.0.0.5:7500, /rack1): DECOMMISSIONING, live, 1234 replicas}.
   */
  static String serverLine(ServerReport s) {
    return "data server "
        + Integer.toUnsignedString(s.serverId())
        + " ("
        + s.address()
        + (s.rack().isEmpty() ? "" : ", " + s.rack())
        + "): "
        + s.state().name()
        + ", "
        + (s.live() ? "live" : "dead")
        + ", "
        + s.replicas()
        + (s.replicas() == 1 ? " replica" : " replicas");
  }

  /**
   * A byte count for people: bytes below 1 KiB, else the largest binary unit it reaches with one
   * decimal ({@code 1.5 GiB}).
   */
  static String bytes(long bytes) {
    return bytes < 1024 ? bytes + " B" : FsFormat.scaled(bytes, 1024, " ", UNITS);
  }

  /** {@link #bytes} with the exact count beside it: {@code 1.5 GiB (1610612736 bytes)}. */
  static String bytesExact(long bytes) {
    return bytes < 1024 ? bytes + " B" : bytes(bytes) + " (" + bytes + " bytes)";
  }

  /**
   * A short span for people: tenths of a second below 10 s ({@code 0.4s}), then whole seconds,
   * minutes, hours and days; {@code never} for the protocol's largest value.
   */
  static String ago(Duration d) {
    if (d.compareTo(NEVER) >= 0) {
      return "never";
    }
    long ms = Math.max(0, d.toMillis());
    if (ms < 10_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 120) {
      return s + "s";
    }
    if (s < 120 * 60) {
      return s / 60 + "m";
    }
    if (s < 48 * 3600) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }

  /** Label and value pairs as lines, the values lined up. */
  private static List<String> labelled(List<List<String>> pairs) {
    int width = 0;
    for (List<String> p : pairs) {
      width = Math.max(width, p.get(0).length());
    }
    List<String> lines = new ArrayList<>(pairs.size());
    for (List<String> p : pairs) {
      lines.add(p.get(0) + " ".repeat(width - p.get(0).length() + 2) + p.get(1));
    }
    return lines;
  }
}
