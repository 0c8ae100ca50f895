package io.braidfs.bench.driver;

import io.braidfs.bench.Throughputs;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ChunkLocation;
import io.braidfs.client.ChunkSetLocation;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.client.ReplicaLocation;
import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Experiment 10, repair (issue 26): how fast a cluster of four data servers restores replication 3
 * after one of them dies, against the disk's own throughput measured in the same round, and how
 * much a client's write slows down while the repair runs.
 *
 * <p>A round's phases, their order rotating from round to round: the disk (a sequential write with
 * one fsync, and a read, of about what one server holds); a cluster repaired alone (a foreground
 * write with no repair first, then the kill); and a cluster repaired under a foreground write
 * started as soon as the death is noticed. The two cluster phases run with the throttles at their
 * defaults and, where this build has a copy bandwidth limit on data servers, again without it.
 * Every cluster is new, filled, and healthy by the MDS's fsck before its kill.
 *
 * <p>Thread-safety: run from the driver's thread; a foreground write during repair runs on a thread
 * of its own.
 */
final class RepairExperiment implements Experiment {
  private static final String THROUGHPUT = "repair throughput against the disk";
  private static final String FOREGROUND = "foreground write";
  private static final String TIMES = "repair times";

  private static final String FROM_NOTICED = "repair, from death noticed";
  private static final String FROM_KILL = "repair, from kill";
  private static final String DISK_WRITE = "disk write + fsync";
  private static final String DISK_READ = "disk read";
  private static final String DISK_COPY = "disk copy (read + write + fsync)";
  private static final String WITHOUT = "no repair";
  private static final String DURING = "during repair";
  private static final String TO_NOTICED = "kill to death noticed";
  private static final String TO_HEALTHY = "death noticed to every file healthy";

  private static final int SERVERS = 4;
  private static final int REPLICATION = 3;
  private static final int BLOCK = 1 << 20;
  private static final long FILE = 256L << 20;
  private static final String DIR = "/exp10";
  private static final String FOREGROUND_FILE = "foreground";

  /** Short heartbeats and dead interval, so that a death is noticed about 2 s after it. */
  private static final Map<String, String> MDS_SETTINGS =
      Map.of(
          "braid.mds.cluster.heartbeat-interval", "200ms",
          "braid.mds.cluster.dead-interval", "2s");

  private static final String COPY_BANDWIDTH = "braid.dataserver.copy.bandwidth";

  /** The repair's throttles, named with their defaults in the description. */
  private static final List<String> THROTTLES =
      List.of(
          "braid.mds.cluster.repair-copies",
          "braid.mds.cluster.repair-copies-per-server",
          COPY_BANDWIDTH,
          "braid.dataserver.copy.max-concurrent");

  /** Repair throttles a cluster runs with: a name for the tables, and its keys. */
  private record Setting(String name, Map<String, String> config) {}

  /** One phase of a round: the disk (no setting), or a cluster repaired alone or under a write. */
  private record Phase(@Nullable Setting setting, boolean loaded) {}

  /** The rows of the per-round table in the notes, in the order run. */
  private final List<String> rounds = new ArrayList<>();

  @Override
  public int number() {
    return 10;
  }

  @Override
  public String name() {
    return "repair";
  }

  @Override
  public String title() {
    return "Repair: one of four data servers lost";
  }

  /** File data written before a kill (3 replicas of it over 4 servers). */
  private static long data(Run run) {
    return run.size(512L << 20, 2L << 30);
  }

  /** What one server holds of it, about: the size of the disk reference's file. */
  private static long perServer(Run run) {
    return data(run) * REPLICATION / SERVERS;
  }

  private static long foreground(Run run) {
    return run.size(256L << 20, 1L << 30);
  }

  private static int roundCount(Run run) {
    return run.rounds(3, 5);
  }

  /**
   * The throttles at their defaults, and, where this build limits the data servers' copy bandwidth,
   * that limit lifted: what the limit costs the repair and buys the foreground.
   */
  private static List<Setting> settings() {
    List<Setting> s = new ArrayList<>();
    s.add(new Setting("default throttles", Map.of()));
    Setting other = otherBandwidth();
    if (other != null) {
      s.add(other);
    }
    return s;
  }

  /**
   * The copy bandwidth the second setting uses: unlimited where the default limits it, else a limit
   * (128 MiB/s per server), so the table shows what the knob trades; null if the build has no such
   * key.
   */
  private static @Nullable Setting otherBandwidth() {
    String def = defaultOf(COPY_BANDWIDTH);
    if (def == null) {
      return null;
    }
    boolean unlimited = DataSize.parse(def).toBytes() == 0;
    return unlimited
        ? new Setting("copy bandwidth 128 MiB/s", Map.of(COPY_BANDWIDTH, "128MiB"))
        : new Setting("copy bandwidth unlimited", Map.of(COPY_BANDWIDTH, "0"));
  }

  /** A row of the repair tables: the repair alone or under load, with a setting. */
  private static String row(boolean loaded, Setting setting) {
    return (loaded ? "during a foreground write, " : "repair alone, ") + setting.name();
  }

  @Override
  public String description(Run run) {
    String cold =
        Run.root()
            ? "the page cache dropped first"
            : "from the page cache, as the driver is not root and cannot drop it (no disk read"
                + " is then recorded)";
    return String.format(
        Locale.ROOT,
        "Each cluster is %s, new for each phase, with MDS settings"
            + " `braid.mds.cluster.heartbeat-interval=200ms` and `dead-interval=2s` (so a death is"
            + " noticed about 2 s after it) and every other setting at its default: layout"
            + " replication 3, stripe width 4, 1 MiB stripe units, 64 MiB chunks; repair throttles"
            + " %s%s. It is filled with %s of files (%s each, 1 MiB writes, durable close), so each"
            + " server holds about %s; once the MDS's fsck (AdminService Fsck on \"/\") calls every"
            + " file healthy, dirty pages are written back and the page cache dropped (%s), and"
            + " one data server is killed abruptly (`MiniCluster.killDataServer`: connections"
            + " reset, no goodbye). **Repair throughput** is the bytes the killed server held (the"
            + " committed length of every chunk it had a replica of, from GetChunkLocations before"
            + " the kill) over the time until fsck, asked every %d ms, first calls every file"
            + " healthy, counted from the kill and from the death being noticed (the first fsck"
            + " that finds a file under-replicated); then every chunk is checked to have 3 replicas,"
            + " none on the killed server. **The disk**, in the same round on the same file system:"
            + " a %s file written sequentially in 1 MiB writes through a `FileChannel` with one"
            + " fsync at the end (its time included; each repair copy syncs its 64 MiB replica"
            + " once, at its end), then read back in 1 MiB reads, %s (one stream, where a repair"
            + " runs several copies at once, so it can read faster than this); between the two, the"
            + " file copied to a new file beside it (1 MiB reads and writes, one fsync), what each"
            + " repair copy does, here with the source and target on the one disk as in the"
            + " cluster. **The"
            + " foreground write**: a client writes a fresh %s file (1 MiB writes, default layout,"
            + " durable close) on a healthy cluster with no repair (the repair-alone cluster, before"
            + " its kill, after the same cache drop), and on the other cluster from the moment the"
            + " death is noticed, while the repair runs; the table of rounds says how much of each"
            + " such write the repair overlapped. A round's phases (the disk; per setting, the repair"
            + " alone with its no-repair write, and the repair during the foreground write) rotate"
            + " from round to round;"
            + " the server killed is the round's number modulo 4. %d rounds. Issue 26's targets:"
            + " repair at least 0.5 x the disk's write throughput, and foreground writes during"
            + " repair at least 0.7 x their speed without. Every server shares the machine's cores"
            + " and its one disk: a repair reads and writes the same device the reference measures.",
        BraidClusters.description("four"),
        throttles(),
        otherBandwidth() != null
            ? "; each cluster phase runs once so and once with `"
                + COPY_BANDWIDTH
                + "="
                + otherBandwidth().config().get(COPY_BANDWIDTH)
                + "`, the other throttles as they are"
            : "",
        Transfers.label(data(run)),
        Transfers.label(FILE),
        Transfers.label(perServer(run)),
        Run.root() ? "the driver runs as root" : "skipped: the driver is not root",
        FsckPoller.INTERVAL.toMillis(),
        Transfers.label(perServer(run)),
        cold,
        Transfers.label(foreground(run)),
        roundCount(run));
  }

  /** The throttles with their defaults, or a word where this build has no such key. */
  private static String throttles() {
    List<String> out = new ArrayList<>();
    for (String key : THROTTLES) {
      String value = defaultOf(key);
      out.add(value == null ? "`" + key + "` (not in this build)" : "`" + key + "=" + value + "`");
    }
    return String.join(", ", out) + " (defaults)";
  }

  /** A configuration key's default as configuration text, or null if no key set declares it. */
  static @Nullable String defaultOf(String key) {
    for (ConfigKeySet set : ServiceLoader.load(ConfigKeySet.class)) {
      for (ConfigKey<?> k : set.keys()) {
        if (k.name().equals(key)) {
          return formatDefault(k);
        }
      }
    }
    return null;
  }

  private static <T> String formatDefault(ConfigKey<T> k) {
    return k.format(k.defaultValue());
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    rounds.clear();
    results.table(THROUGHPUT, Unit.MIB_PER_S);
    results.table(FOREGROUND, Unit.MIB_PER_S);
    results.table(TIMES, Unit.SECONDS);
    List<Setting> settings = settings();
    List<Phase> phases = new ArrayList<>();
    phases.add(new Phase(null, false));
    for (Setting setting : settings) {
      phases.add(new Phase(setting, false));
      phases.add(new Phase(setting, true));
    }
    for (int round = 0; round < roundCount(run); round++) {
      for (Phase phase : Run.rotate(phases, round)) {
        Setting setting = phase.setting();
        if (setting == null) {
          disk(run, results, round, settings);
        } else {
          cluster(run, results, round, setting, phase.loaded());
        }
      }
    }
    results.ratio(FROM_NOTICED, DISK_WRITE);
    results.ratio(FROM_KILL, DISK_WRITE);
    results.ratio(FROM_NOTICED, DISK_READ);
    results.ratio(FROM_NOTICED, DISK_COPY);
    results.ratio(DURING, WITHOUT);
    results.describe(
        THROUGHPUT,
        "the bytes the killed server held over the time until every file is healthy again; the"
            + " disk's columns are one measurement per round, shown in every row");
    results.describe(
        FOREGROUND,
        "one client writing a fresh file, replication 3, durable close: on a healthy cluster, and"
            + " while the repair of a lost server runs");
    results.describe(
        TIMES, "by phase: the repair alone, and the repair during a foreground write, by setting");
    results.note(roundTable());
  }

  /** The disk alone: a write with one fsync, then a read from the disk, of one server's share. */
  private static void disk(Run run, Results results, int round, List<Setting> settings)
      throws IOException, InterruptedException {
    Path diskDir = run.scratch("exp10-disk");
    LocalDiskTarget local = new LocalDiskTarget(diskDir);
    Transfers.warmUpAndVerify(local, "warm-up", 32L << 20, BLOCK);
    long size = perServer(run);
    // As before a kill: no dirty pages of earlier phases left to write back meanwhile.
    Run.dropCaches();
    long write = Transfers.write(local, "disk", size, BLOCK, false);
    boolean cold = Run.dropCaches();
    long copy = copy(diskDir.resolve("disk"), diskDir);
    cold &= Run.dropCaches();
    long read = Transfers.read(local, "disk", size, BLOCK);
    local.delete("disk");
    for (Setting setting : settings) {
      for (boolean loaded : new boolean[] {false, true}) {
        String row = row(loaded, setting);
        results.recordRate(THROUGHPUT, row, Double.NaN, DISK_WRITE, round, size, write);
        results.recordRate(THROUGHPUT, row, Double.NaN, DISK_COPY, round, size, copy);
        if (cold) {
          results.recordRate(THROUGHPUT, row, Double.NaN, DISK_READ, round, size, read);
        }
      }
    }
  }

  /**
   * What a repair copy does, done by the disk alone: {@code file} read in 1 MiB reads and written
   * to a new file beside it on the same file system, synced once at the end; the copy is deleted.
   *
   * @return nanoseconds taken
   */
  private static long copy(Path file, Path dir) throws IOException {
    Path to = dir.resolve("disk-copy");
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocateDirect(BLOCK);
    long t0 = System.nanoTime();
    try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(file);
        java.nio.channels.FileChannel out =
            java.nio.channels.FileChannel.open(
                to,
                java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
      while (in.read(buf) > 0) {
        buf.flip();
        while (buf.hasRemaining()) {
          out.write(buf);
        }
        buf.clear();
      }
      out.force(false);
    }
    long took = System.nanoTime() - t0;
    java.nio.file.Files.delete(to);
    return took;
  }

  /**
   * A new cluster, filled and healthy, one of whose servers is killed; the repair timed by fsck,
   * alone (after a foreground write with no repair) or during a foreground write.
   */
  private void cluster(Run run, Results results, int round, Setting setting, boolean loaded)
      throws Exception {
    Path dir = run.scratch("exp10-cluster");
    String fgRow = Transfers.label(foreground(run)) + " file, " + setting.name();
    Map<String, String> config = new HashMap<>(MDS_SETTINGS);
    config.putAll(setting.config());
    try (MiniCluster c = BraidClusters.start(dir, SERVERS, config)) {
      BraidClient client = c.newBraidClient("root");
      FsckPoller fsck = new FsckPoller(c.newClient("root"), c.mdsAddress());
      Target braid = new BraidTarget(BraidTarget.SYSTEM, client, DIR, LayoutPolicy.inherit());
      List<String> files = fill(run, braid);
      fsck.await(
          "the new files healthy",
          Duration.ofMinutes(2),
          r ->
              r.getFiles() >= files.size()
                  && FsckPoller.healthy(r, null)
                  && r.getRepairQueue() == 0);
      if (!loaded) {
        Run.dropCaches();
        long nanos = Transfers.write(braid, FOREGROUND_FILE, foreground(run), BLOCK, false);
        results.recordRate(FOREGROUND, fgRow, Double.NaN, WITHOUT, round, foreground(run), nanos);
        braid.delete(FOREGROUND_FILE);
      }

      int victim = round % SERVERS;
      int victimId = c.dataServer(victim).serverId();
      Held held = held(client, files, victimId);
      // The repair reads its sources from the disk, as it would long after they were written.
      Run.dropCaches();
      long kill = System.nanoTime();
      c.killDataServer(victim);
      long noticed =
          fsck.await(
              "the death of data server " + victim + " noticed",
              Duration.ofSeconds(30),
              r -> FsckPoller.unhealthy(r, null) > 0);
      // Generous (4 MiB/s and a minute): only a repair that stalls reaches it.
      Duration limit = Duration.ofSeconds(60 + held.bytes / (4 << 20));
      long healthy;
      double overlap = Double.NaN;
      if (loaded) {
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
          Future<long[]> fg =
              writer.submit(
                  () -> {
                    long start = System.nanoTime();
                    Transfers.write(braid, FOREGROUND_FILE, foreground(run), BLOCK, false);
                    return new long[] {start, System.nanoTime()};
                  });
          String fgPath = DIR + "/" + FOREGROUND_FILE;
          healthy =
              fsck.await(
                  "every file but the one being written healthy again",
                  limit,
                  r -> FsckPoller.healthy(r, fgPath));
          long[] span = result(fg);
          results.recordRate(
              FOREGROUND, fgRow, Double.NaN, DURING, round, foreground(run), span[1] - span[0]);
          overlap =
              Math.max(0, Math.min(healthy, span[1]) - span[0]) / (double) (span[1] - span[0]);
        } finally {
          writer.shutdownNow();
          if (!writer.awaitTermination(1, TimeUnit.MINUTES)) {
            System.err.println(
                "braid bench: exp10's foreground write still running after a minute");
          }
        }
      } else {
        healthy = fsck.await("every file healthy again", limit, r -> FsckPoller.healthy(r, null));
      }
      checkReplicas(client, files, victimId);

      String row = row(loaded, setting);
      results.recordRate(
          THROUGHPUT, row, Double.NaN, FROM_NOTICED, round, held.bytes, healthy - noticed);
      results.recordRate(THROUGHPUT, row, Double.NaN, FROM_KILL, round, held.bytes, healthy - kill);
      results.record(
          TIMES, TO_NOTICED, Double.NaN, row, round, (noticed - kill) / 1e9, Unit.SECONDS);
      results.record(
          TIMES, TO_HEALTHY, Double.NaN, row, round, (healthy - noticed) / 1e9, Unit.SECONDS);
      rounds.add(
          String.format(
              Locale.ROOT,
              "| %d | %s | %d | %s | %d | %.2f | %.2f | %s | %s |",
              round,
              row,
              victim,
              Results.number(held.bytes / 1048576.0) + " MiB",
              held.chunks,
              (noticed - kill) / 1e9,
              (healthy - noticed) / 1e9,
              Results.number(held.bytes / 1048576.0 / ((healthy - noticed) / 1e9)),
              Double.isNaN(overlap) ? "" : String.format(Locale.ROOT, "%.0f%%", overlap * 100)));
    } finally {
      Throughputs.deleteTree(dir);
    }
  }

  /** Writes {@link #data} in files of {@link #FILE}; their absolute paths. */
  private static List<String> fill(Run run, Target braid) throws IOException {
    Transfers.warmUpAndVerify(braid, "warm-up", 32L << 20, BLOCK);
    List<String> files = new ArrayList<>();
    for (int i = 0; i < data(run) / FILE; i++) {
      String name = "data-" + i;
      Transfers.write(braid, name, FILE, BLOCK, false);
      files.add(DIR + "/" + name);
    }
    return files;
  }

  /** What server {@code serverId} holds of {@code files}: committed bytes and chunks. */
  private record Held(long bytes, int chunks) {}

  private static Held held(BraidClient client, List<String> files, int serverId)
      throws IOException {
    long bytes = 0;
    int chunks = 0;
    for (String f : files) {
      for (ChunkSetLocation set : client.locations(f, 0, 0).chunkSets()) {
        for (ChunkLocation chunk : set.chunks()) {
          for (ReplicaLocation r : chunk.replicas()) {
            if (r.serverId() == serverId) {
              bytes += chunk.length();
              chunks++;
            }
          }
        }
      }
    }
    if (chunks == 0) {
      throw new IOException("data server " + serverId + " holds no chunk of " + files);
    }
    return new Held(bytes, chunks);
  }

  /**
   * Fails unless every chunk of {@code files} has its 3 replicas, none on {@code deadId}: fsck's
   * "healthy" checked through the locations readers get.
   */
  private static void checkReplicas(BraidClient client, List<String> files, int deadId)
      throws IOException {
    for (String f : files) {
      for (ChunkSetLocation set : client.locations(f, 0, 0).chunkSets()) {
        for (ChunkLocation chunk : set.chunks()) {
          List<Integer> holders = chunk.replicas().stream().map(ReplicaLocation::serverId).toList();
          if (holders.size() != REPLICATION || holders.contains(deadId)) {
            throw new IOException(
                String.format(
                    Locale.ROOT,
                    "fsck called %s healthy, but its chunk %d is on servers %s (ds id %d died)",
                    f,
                    chunk.chunkIndex(),
                    holders,
                    deadId));
          }
        }
      }
    }
  }

  private static long[] result(Future<long[]> f) throws IOException, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /** The per-round table of the notes: what each kill lost and how long each repair took. */
  private String roundTable() {
    StringBuilder md =
        new StringBuilder(
            "**Each kill** (server: the index of the data server killed; data: what it held;"
                + " overlap: the share of the foreground write's time during which the repair"
                + " was still running)\n\n"
                + "| round | phase | server | data | chunks | kill to noticed (s) | noticed to"
                + " healthy (s) | repair from noticed (MiB/s) | overlap |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
    for (String r : rounds) {
      md.append(r).append('\n');
    }
    return md.toString();
  }
}
