package io.braidfs.bench.driver;

import static java.util.Objects.requireNonNull;

import io.braidfs.bench.Throughputs;
import io.braidfs.bench.ref.HdfsCluster;
import io.braidfs.bench.ref.Sshd;
import io.braidfs.bench.ref.Sshfs;
import io.braidfs.bench.ref.TcpSource;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.testing.LinkEmulator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;

/**
 * Experiment 6, WAN read (after Mogami): one file read sequentially in 64 KiB reads across an
 * emulated link of 27 ms RTT and 1 Gbit/s ({@link LinkEmulator}, 13.5 ms each way, 125,000,000
 * bytes/s each way), by Braid with read-ahead off, with fixed windows and with the automatic one,
 * by raw TCP and by sshfs; then random 64 KiB reads, counting the bytes that crossed the link
 * against the bytes asked for. The emulator is checked in the same run (ping-pong RTT, raw stream
 * rate) and the check printed beside the results.
 *
 * <p>Every system sits behind the same emulator: Braid's MDS and data servers ({@link
 * BraidOverLink}), sshd (sshfs connects through a route), the raw TCP source. Each sequential row
 * measures raw TCP right beside Braid over the same number of bytes, so the ratio in each row is
 * paired; sshfs (its own read-ahead) sits in the "automatic" row. A measurement fails if fewer
 * bytes crossed the link than were read (the read came from a cache).
 *
 * <p>A system is one {@link WanSystem}: to add one (HDFS), start it behind the link, write the
 * file, and add it to {@code references} in {@link #run}.
 */
final class WanExperiment implements Experiment {
  static final Duration ONE_WAY = Duration.ofNanos(13_500_000);
  static final long RATE = 125_000_000L;
  static final int READ = 64 << 10;

  private static final String SEQ = "sequential 64 KiB reads";
  private static final String RANDOM = "random 64 KiB reads";
  private static final String RANDOM_LATENCY = "random 64 KiB reads, time per read";
  private static final String BRAID = "Braid";
  private static final String TCP = "raw TCP";
  private static final String SSHFS = "sshfs";
  private static final String HDFS = "HDFS";
  private static final String HDFS_DIR = "/exp6";
  private static final String FILE = "/wan";
  private static final long MIB = 1 << 20;

  /**
   * A system in a row of the sequential table; it reads at most {@code maxBytes} of the row's bytes
   * (a slow reference in quick mode).
   */
  private record Entry(String system, WanSystem source, long maxBytes) {
    Entry(String system, WanSystem source) {
      this(system, source, Long.MAX_VALUE);
    }
  }

  /** A row of the sequential table: its label, x (NaN: not plotted), bytes read, its systems. */
  private record Row(String label, double x, long bytes, List<Entry> entries) {}

  @Override
  public int number() {
    return 6;
  }

  @Override
  public String name() {
    return "wan";
  }

  @Override
  public String title() {
    return "WAN read (27 ms RTT, 1 Gbit/s)";
  }

  @Override
  public String description(Run run) {
    return String.format(
        Locale.ROOT,
        "A %d MiB file read from offset 0 to its end in 64 KiB reads (one thread, time from open"
            + " to the last byte) across a user-space link emulator with 13.5 ms each way (27 ms"
            + " RTT) and 125,000,000 bytes/s each way, shared by every connection. Braid: a"
            + " MiniCluster (1 MDS, 3 data servers, replication 1, stripe width 3 x 1 MiB) whose"
            + " MDS and data servers are all reached through the emulator; read-ahead off (only"
            + " the first %d MiB are read, one round trip per read), fixed windows of %s MiB"
            + " (`braid.client.prefetch.window`), and"
            + " automatic (window 0, the default). Raw TCP:"
            + " one socket through the emulator asking a server for the same number of bytes,"
            + " measured right beside Braid in every row. sshfs: its own sshd on loopback"
            + " behind the emulator, default caching (kernel page cache, sshfs read-ahead,"
            + " `dir_cache=yes`)%s. HDFS: the run's cluster (%s), its client's NameNode and"
            + " DataNode sockets all routed through the emulator, file written beforehand"
            + " without it. %d rounds, systems alternating in each"
            + " row. Random reads: %d reads of 64 KiB at random 64 KiB-aligned offsets (never"
            + " adjacent, no offset twice) through one open file, per system and round; the emulator counts the"
            + " bytes delivered from servers to the client.",
        size(run) >> 20,
        slowBytes(run) >> 20,
        windowList(),
        run.quick() ? ", reading the first 64 MiB only (at its pace a whole file takes 30 s)" : "",
        HdfsCluster.describe(SharedReferences.NODES, 1),
        run.rounds(2, 3),
        randomReads(run));
  }

  private static long size(Run run) {
    return run.size(256 * MIB, 1024 * MIB);
  }

  /** Bytes read with read-ahead off: at 64 KiB per round trip (2.4 MB/s) a whole file is slow. */
  private static long slowBytes(Run run) {
    return run.size(8 * MIB, 64 * MIB);
  }

  /** Bytes sshfs reads in the sequential table: at its ~8 MB/s a whole quick file takes 30 s. */
  private static long slowReference(Run run) {
    return run.size(64 * MIB, Long.MAX_VALUE);
  }

  private static int randomReads(Run run) {
    return (int) run.size(100, 400);
  }

  /** The fixed windows in MiB, 1 to 128 in steps of 2x (quick and full alike). */
  private static final long[] WINDOWS = {1, 2, 4, 8, 16, 32, 64, 128};

  private static String windowList() {
    return String.join(
        ", ", Arrays.stream(WINDOWS).mapToObj(Long::toString).toArray(String[]::new));
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    long size = size(run);
    Path dir = run.scratch("exp6-wan");
    Sshd sshd = null;
    if (Run.installed("sshfs")) {
      sshd = run.shared("sshd", () -> Sshd.start(run.scratch("sshd")));
    } else {
      results.note("sshfs is not installed (bench/bench-setup.sh installs it): left out.");
    }
    try (LinkEmulator link = new LinkEmulator(ONE_WAY, RATE);
        TcpSource tcp = TcpSource.start();
        BraidOverLink braid = BraidOverLink.start(link, dir.resolve("braid"))) {
      InetSocketAddress tcpRoute = link.route(tcp.address()).address();
      checkEmulator(run, link, tcpRoute, results);
      Map<String, BraidClient> clients = braidClients(braid, run);
      BraidClient automatic = requireNonNull(clients.get("automatic")); // braidClients makes it
      writeFile(automatic, dir.resolve("sshfs-remote"), size);
      // A null resource (sshfs not installed) is skipped by try-with-resources.
      try (Sshfs sshfs =
          sshd == null
              ? null
              : Sshfs.mount(
                  sshd,
                  link.route(sshd.address()).address(),
                  dir.resolve("sshfs-remote"),
                  Files.createDirectories(dir.resolve("sshfs")))) {
        // The references of the "automatic" row and of the random reads.
        List<Entry> references = new ArrayList<>();
        references.add(new Entry(HDFS, hdfsOverLink(run, link, size)));
        if (sshfs != null) {
          references.add(
              new Entry(
                  SSHFS, WanSystem.file(sshfs.directory().resolve("wan")), slowReference(run)));
        }
        List<Row> rows = rows(run, size, clients, WanSystem.tcp(tcpRoute), references);
        sequential(run, link, rows, results);
        List<Entry> random = new ArrayList<>();
        random.add(new Entry(BRAID, WanSystem.braid(automatic, FILE)));
        random.addAll(references);
        random(run, link, size, random, results);
      }
    }
    // Only after a clean run: a failed one leaves its directories for a look.
    Throughputs.deleteTree(dir);
    SharedReferences.hdfs(run).fileSystem().delete(new org.apache.hadoop.fs.Path(HDFS_DIR), true);
    results.ratio(BRAID, TCP);
    results.ratio(BRAID, SSHFS);
    results.ratio(BRAID, HDFS);
    results.plot(SEQ, "read-ahead window (MiB)", true);
    describeTables(results);
  }

  /**
   * HDFS (the run's shared cluster) with the test file written at loopback speed, then read by a
   * client whose every socket, to the NameNode and to DataNodes, is routed through the link.
   */
  private static WanSystem hdfsOverLink(Run run, LinkEmulator link, long size) throws Exception {
    HdfsCluster hdfs = SharedReferences.hdfs(run);
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(HDFS_DIR + FILE);
    byte[] block = fileBlock();
    try (OutputStream out = hdfs.fileSystem().create(path, true)) {
      for (long at = 0; at < size; at += block.length) {
        out.write(block, 0, (int) Math.min(block.length, size - at));
      }
    }
    Map<InetSocketAddress, InetSocketAddress> routes = new ConcurrentHashMap<>();
    FileSystem far =
        hdfs.fileSystem(
            target ->
                routes.computeIfAbsent(
                    target,
                    t -> {
                      try {
                        return link.route(t).address();
                      } catch (IOException e) {
                        throw new UncheckedIOException("no emulator route to " + t, e);
                      }
                    }));
    return WanSystem.hadoop(far, path);
  }

  private static Map<String, BraidClient> braidClients(BraidOverLink braid, Run run)
      throws IOException {
    Map<String, BraidClient> clients = new LinkedHashMap<>();
    clients.put("off", braid.client(Map.of(ClientConfigKeys.PREFETCH.name(), "false")));
    for (long w : WINDOWS) {
      clients.put(
          w + " MiB", braid.client(Map.of(ClientConfigKeys.PREFETCH_WINDOW.name(), w + "MiB")));
    }
    clients.put("automatic", braid.client(Map.of()));
    return clients;
  }

  private static List<Row> rows(
      Run run, long size, Map<String, BraidClient> clients, WanSystem tcp, List<Entry> references) {
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, BraidClient> c : clients.entrySet()) {
      String label = c.getKey();
      List<Entry> entries = new ArrayList<>();
      entries.add(new Entry(BRAID, WanSystem.braid(c.getValue(), FILE)));
      entries.add(new Entry(TCP, tcp));
      if (label.equals("off")) {
        rows.add(new Row("off", Double.NaN, slowBytes(run), entries));
      } else if (label.equals("automatic")) {
        entries.addAll(references);
        rows.add(new Row("automatic", Double.NaN, size, entries));
      } else {
        double mib = Double.parseDouble(label.substring(0, label.indexOf(' ')));
        rows.add(new Row(label, mib, size, entries));
      }
    }
    return rows;
  }

  /** The test file's contents: this block, repeated. */
  private static byte[] fileBlock() {
    byte[] block = new byte[(int) (16 * MIB)];
    new Random(6).nextBytes(block);
    return block;
  }

  /** The same bytes to Braid (across the link) and to the directory sshd serves (locally). */
  private static void writeFile(BraidClient braid, Path sshfsRemote, long size) throws IOException {
    byte[] block = fileBlock();
    Files.createDirectories(sshfsRemote);
    try (OutputStream b = braid.create(FILE);
        OutputStream s = Files.newOutputStream(sshfsRemote.resolve("wan"))) {
      for (long at = 0; at < size; at += block.length) {
        int n = (int) Math.min(block.length, size - at);
        b.write(block, 0, n);
        s.write(block, 0, n);
      }
    }
  }

  private static void sequential(Run run, LinkEmulator link, List<Row> rows, Results results)
      throws IOException, InterruptedException {
    // Warm-up, unrecorded: JIT, connections, the servers' page cache.
    Row last = rows.get(rows.size() - 1);
    for (Entry e : last.entries()) {
      readSequentially(link, e, Math.min(e.maxBytes(), 16 * MIB));
    }
    for (int round = 0; round < run.rounds(2, 3); round++) {
      for (Row row : rows) {
        for (Entry e : Run.rotate(row.entries(), round)) {
          long bytes = Math.min(row.bytes(), e.maxBytes());
          long nanos = readSequentially(link, e, bytes);
          double mbPerS = bytes / 1e6 / (nanos / 1e9);
          results.record(SEQ, row.label(), row.x(), e.system(), round, mbPerS, Unit.MB_PER_S);
        }
      }
    }
  }

  /** Reads the first {@code bytes} of the file in 64 KiB reads; the nanoseconds from open. */
  private static long readSequentially(LinkEmulator link, Entry e, long bytes)
      throws IOException, InterruptedException {
    awaitQuiet(link);
    link.resetCounters();
    byte[] b = new byte[READ];
    long t0 = System.nanoTime();
    long nanos;
    try (WanSystem.Reader r = e.source().open(bytes)) {
      for (long left = bytes; left > 0; ) {
        int n = r.read(b, 0, (int) Math.min(READ, left));
        if (n < 0) {
          throw new IOException(e.system() + ": end of file with " + left + " bytes still to read");
        }
        left -= n;
      }
      // From open to the last byte: the close (dropping read-ahead) is not part of the read.
      nanos = System.nanoTime() - t0;
    }
    // The emulator counts a chunk just after writing it, so the reader may be a moment ahead.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    while (link.bytesDown() < bytes && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
    if (link.bytesDown() < bytes) {
      throw new IllegalStateException(
          String.format(
              "%s read %d bytes but only %d crossed the link: some came from a cache",
              e.system(), bytes, link.bytesDown()));
    }
    return nanos;
  }

  private static void random(
      Run run, LinkEmulator link, long size, List<Entry> systems, Results results)
      throws IOException, InterruptedException {
    int reads = randomReads(run);
    long asked = (long) reads * READ;
    byte[] b = new byte[READ];
    // The exact counts, since the table's three digits hide protocol overhead.
    Map<String, List<String>> counts = new LinkedHashMap<>();
    for (int round = 0; round < run.rounds(2, 3); round++) {
      for (Entry e : Run.rotate(systems, round)) {
        long[] offsets = randomOffsets(size, reads, round);
        awaitQuiet(link);
        link.resetCounters();
        double millis;
        try (WanSystem.Reader in = e.source().open(size)) {
          // After the open: the table is the time of one seek + read.
          long t0 = System.nanoTime();
          for (int i = 0; i < reads; i++) {
            in.seek(offsets[i]);
            in.readFully(b, READ);
          }
          millis = (System.nanoTime() - t0) / 1e6 / reads;
        }
        awaitQuiet(link); // read-ahead still in flight counts too
        double moved = (double) link.bytesDown() / asked;
        counts
            .computeIfAbsent(e.system(), k -> new ArrayList<>())
            .add(String.format(Locale.ROOT, "%,d", link.bytesDown()));
        results.record(
            RANDOM, "link bytes / bytes asked", Double.NaN, e.system(), round, moved, Unit.RATIO);
        results.record(
            RANDOM_LATENCY, "one 64 KiB read", Double.NaN, e.system(), round, millis, Unit.MILLIS);
      }
    }
    results.describe(
        RANDOM,
        String.format(
            Locale.ROOT,
            "bytes delivered over the link from servers to the client, divided by the %d x 64"
                + " KiB = %d MiB asked for (1 is ideal)",
            reads,
            asked >> 20));
    StringBuilder note =
        new StringBuilder(
            String.format(
                Locale.ROOT, "Random reads, bytes over the link per round (%,d asked):", asked));
    counts.forEach(
        (system, c) -> note.append(' ').append(system).append(' ').append(c).append(';'));
    note.setCharAt(note.length() - 1, '.');
    results.note(note.toString());
  }

  /**
   * {@code reads} distinct offsets of even 64 KiB blocks, so that no read starts where the one
   * before ended and none is served from a cache of an earlier one; fresh each round, the same for
   * every system in it.
   */
  private static long[] randomOffsets(long size, int reads, int round) {
    List<Long> blocks = new ArrayList<>();
    for (long at = 0; at + READ <= size; at += 2L * READ) {
      blocks.add(at);
    }
    Collections.shuffle(blocks, new Random(100 + round));
    return blocks.subList(0, reads).stream().mapToLong(Long::longValue).toArray();
  }

  /** Waits until no byte has crossed the link for 200 ms (at most 10 s), so counts are clean. */
  private static void awaitQuiet(LinkEmulator link) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long seen = -1;
    while (System.nanoTime() < deadline) {
      long now = link.bytesDown() + link.bytesUp();
      if (now == seen) {
        return;
      }
      seen = now;
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  /** Ping-pong RTT and one raw stream through the emulator, printed beside the results. */
  private static void checkEmulator(
      Run run, LinkEmulator link, InetSocketAddress via, Results results) throws IOException {
    int pings = (int) run.size(30, 100);
    long stream = run.size(64 * MIB, 256 * MIB);
    double[] rtt = new double[pings];
    // Three streams, since one short stream on a shared 2-core machine can hit a busy moment.
    double[] rates = new double[3];
    byte[] b = new byte[READ];
    try (TcpSource.Client c = TcpSource.connect(via)) {
      for (int i = 0; i < pings; i++) {
        long t0 = System.nanoTime();
        c.request(1);
        c.read(b, 0, 1);
        rtt[i] = (System.nanoTime() - t0) / 1e6;
      }
      for (int i = 0; i < rates.length; i++) {
        rates[i] = streamRate(c, stream, b);
      }
    }
    Arrays.sort(rtt);
    Arrays.sort(rates);
    String check =
        String.format(
            Locale.ROOT,
            "Emulator check in this run (%s): ping-pong through it, median RTT %.2f ms (min %.2f,"
                + " max %.2f) over %d round trips, configured 27.00 ms; three raw TCP streams of"
                + " %d MiB at %.1f, %.1f and %.1f MB/s from first byte to last, configured 125.0"
                + " MB/s.",
            link,
            rtt[pings / 2],
            rtt[0],
            rtt[pings - 1],
            pings,
            stream >> 20,
            rates[0],
            rates[1],
            rates[2]);
    System.out.println(check);
    results.note(check);
  }

  /** MB/s of one stream of {@code bytes}, from its first byte to its last (no request RTT). */
  private static double streamRate(TcpSource.Client c, long bytes, byte[] b) throws IOException {
    c.request(bytes);
    long first = c.read(b, 0, b.length);
    long t0 = System.nanoTime();
    long got = 0;
    for (int n; (n = c.read(b, 0, b.length)) >= 0; ) {
      got += n;
    }
    double rate = got / 1e6 / ((System.nanoTime() - t0) / 1e9);
    if (got + first != bytes) {
      throw new IOException(
          "raw stream through the emulator: " + (got + first) + " of " + bytes + " bytes");
    }
    return rate;
  }

  private static void describeTables(Results results) {
    results.describe(
        SEQ,
        "one reader, 64 KiB reads from offset 0; rows are Braid's read-ahead setting (the window"
            + " as x in the plot), raw TCP is measured beside Braid in each row over the same"
            + " bytes, sshfs (its own read-ahead) in the automatic row");
    results.describe(RANDOM_LATENCY, "mean time of one seek + 64 KiB read, per round");
    results.note(
        "The emulator models each request's latency and the link's bandwidth, not TCP's own"
            + " congestion window over a long path: every socket is on loopback, so slow start"
            + " and loss recovery over 27 ms do not happen, and a real WAN can only be slower"
            + " for a single connection.");
  }
}
