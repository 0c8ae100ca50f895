package io.braidfs.bench.fuse;

import static java.util.Objects.requireNonNull;

import io.braidfs.bench.ref.BindfsMount;
import io.braidfs.bench.ref.BraidSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The FUSE mount against a FUSE passthrough (bindfs) and the local disk, side by side in one run
 * (issue 7; experiments 3 and 7 of BENCHMARKING.md at one size):
 *
 * <ul>
 *   <li>sequential write of a file with {@code dd} in 1 MiB and 4 KiB blocks, {@code conv=fsync}
 *       (one fsync at the end, time includes it and the close), from a random file in /dev/shm;
 *   <li>sequential read of it back with {@code dd} in 1 MiB and 4 KiB blocks after dropping the
 *       page cache (as root; otherwise the reads come from the cache and the report says so);
 *   <li>unpacking a real source tarball with {@code tar x} and building it with {@code make}, on
 *       the mount and on the local disk (and on bindfs, for the cost of FUSE alone).
 * </ul>
 *
 * <p>Braid is a {@link BraidSystem} (a MiniCluster in this JVM with its directories on the same
 * disk as the references, mounted with the default options); the build is {@link SourceBuild},
 * which {@code braid bench} experiment 7 runs too. bindfs mounts a directory of the same disk. The
 * systems alternate in every round; each measurement's median, range and ratios to the references
 * are printed as Markdown rows and every sample goes to {@code fuse.csv} in the output directory.
 *
 * <p>Run (after {@code bench/bench-setup.sh}, which installs bindfs and fetches the source
 * tarball): {@code java -cp bench/target/bench.jar io.braidfs.bench.fuse.FuseBench [--size-mib
 * 1024] [--rounds 3] [--build-rounds 3] [--tarball FILE] [--build "make -j2 MALLOC=libc"] [--dir
 * DIR] [--out DIR]}.
 */
public final class FuseBench {
  private static final String LOCAL = "local disk";
  private static final String BINDFS = "bindfs";
  private static final String BRAID = "Braid mount";

  private final long sizeMib;
  private final Path dir;
  private final Path out;
  private final boolean root = "root".equals(System.getProperty("user.name"));

  /** Samples per "measurement|system", in insertion order, and their unit. */
  private final Map<String, List<Double>> samples = new LinkedHashMap<>();

  private final Map<String, String> units = new LinkedHashMap<>();
  private final StringBuilder csv = new StringBuilder("round,system,measurement,value,unit\n");
  private boolean recording;

  private FuseBench(long sizeMib, Path dir, Path out) {
    this.sizeMib = sizeMib;
    this.dir = dir;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    long sizeMib = 1024;
    int rounds = 3;
    int buildRounds = 3;
    Path dir = Path.of("target", "bench-fuse");
    Path out = Path.of("target", "bench");
    Path tarball = null;
    String build = SourceBuild.defaultCommand();
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--size-mib" -> sizeMib = Long.parseLong(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--build-rounds" -> buildRounds = Integer.parseInt(args[i + 1]);
        case "--tarball" -> tarball = Path.of(args[i + 1]);
        case "--build" -> build = args[i + 1];
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--out" -> out = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (tarball == null) {
      tarball = SourceBuild.findTarball(Path.of("target", "bench-src"));
    }
    new FuseBench(sizeMib, dir.toAbsolutePath(), out.toAbsolutePath())
        .run(rounds, buildRounds, new SourceBuild(tarball, build));
  }

  private void run(int rounds, int buildRounds, SourceBuild build) throws Exception {
    deleteTree(dir);
    Files.createDirectories(dir);
    Files.createDirectories(out);
    boolean bindfs = BindfsMount.installed();
    if (!bindfs) {
      System.out.println("bindfs is not installed (bench/bench-setup.sh installs it): left out");
    }
    if (!root) {
      System.out.println("not root: the page cache is not dropped, reads come from memory");
    }
    System.out.printf(
        "machine: %d cores, %s; kernel %s; %s%n",
        Runtime.getRuntime().availableProcessors(),
        capture("free -g | awk '/Mem:/ {print $2 \" GiB RAM\"}'"),
        capture("uname -r"),
        capture("df -h " + dir + " | awk 'NR==2 {print $1 \" (\" $2 \")\"}'"));
    Path source = Path.of("/dev/shm", "braid-fuse-bench-" + ProcessHandle.current().pid());
    writeRandom(source, sizeMib << 20);
    Path clusterDir = Files.createDirectories(dir.resolve("cluster"));
    Path local = Files.createDirectories(dir.resolve("local"));
    // bindfs is null when not installed; try-with-resources skips a null resource.
    try (BraidSystem mount = BraidSystem.start(clusterDir, 3);
        BindfsMount bindMount = bindfs ? BindfsMount.mount(dir.resolve("bindfs")) : null) {
      Path braid = mount.mount();
      Path bind = bindMount == null ? null : bindMount.mount();
      Map<String, Path> systems = new LinkedHashMap<>();
      systems.put(LOCAL, local);
      if (bindMount != null) {
        systems.put(BINDFS, bind);
      }
      systems.put(BRAID, braid);
      // warm-up: JIT compilation, connections; an eighth of the size, unrecorded
      for (Map.Entry<String, Path> s : systems.entrySet()) {
        sequential(0, s.getKey(), s.getValue(), source, Math.max(8, sizeMib / 8));
      }
      recording = true;
      for (int round = 1; round <= rounds; round++) {
        for (Map.Entry<String, Path> s : rotate(systems, round).entrySet()) {
          sequential(round, s.getKey(), s.getValue(), source, sizeMib);
        }
      }
      for (int round = 1; round <= buildRounds; round++) {
        for (Map.Entry<String, Path> s : rotate(systems, round).entrySet()) {
          unpackAndBuild(round, s.getKey(), s.getValue(), build);
        }
      }
    } finally {
      Files.deleteIfExists(source);
    }
    report();
    Files.writeString(out.resolve("fuse.csv"), csv);
    System.out.println("samples: " + out.resolve("fuse.csv"));
    deleteTree(dir);
  }

  /** The systems in a different order every round, so none always runs first. */
  private static Map<String, Path> rotate(Map<String, Path> systems, int round) {
    List<String> names = new ArrayList<>(systems.keySet());
    Collections.rotate(names, round);
    Map<String, Path> r = new LinkedHashMap<>();
    for (String n : names) {
      r.put(n, systems.get(n));
    }
    return r;
  }

  private void sequential(int round, String system, Path where, Path source, long mib)
      throws IOException, InterruptedException {
    Path f = where.resolve("seq-" + round);
    String[][] blocks = {{"1M", "1 MiB"}, {"4k", "4 KiB"}};
    for (String[] b : blocks) {
      long t0 = System.nanoTime();
      String w =
          String.format(
              "dd if=%s of=%s bs=%s count=%d iflag=count_bytes conv=fsync status=none",
              source, f, b[0], mib << 20);
      check(sh(dir, w), w);
      rate(round, system, "write " + b[1] + " blocks + fsync", mib, t0);
      dropCaches();
      t0 = System.nanoTime();
      String r = String.format("dd if=%s of=/dev/null bs=%s status=none", f, b[0]);
      check(sh(dir, r), r);
      rate(round, system, "read " + b[1] + " blocks (cold cache)", mib, t0);
      Files.delete(f);
    }
  }

  private void unpackAndBuild(int round, String system, Path where, SourceBuild build)
      throws IOException, InterruptedException {
    SourceBuild.Times t = build.run(where, "build-" + round);
    time(round, system, "tar x", t.unpackSeconds());
    time(round, system, "build", t.buildSeconds());
    time(round, system, "tar x + build", t.totalSeconds());
    Path tree = where.resolve("build-" + round);
    check(sh(dir, "rm -rf " + tree), "rm -rf " + tree);
  }

  private void dropCaches() throws IOException, InterruptedException {
    if (root) {
      sh(dir, "sync; echo 3 > /proc/sys/vm/drop_caches");
    }
  }

  private void rate(int round, String system, String what, long mib, long t0) {
    add(round, system, what, mib / seconds(t0), "MiB/s");
  }

  private void time(int round, String system, String what, double s) {
    add(round, system, what, s, "s");
  }

  private void add(int round, String system, String what, double value, String unit) {
    System.out.printf(Locale.ROOT, "%-12s %-36s %10.1f %s%n", system, what, value, unit);
    if (!recording) {
      return;
    }
    samples.computeIfAbsent(what + "|" + system, k -> new ArrayList<>()).add(value);
    units.put(what, unit);
    csv.append(String.format(Locale.ROOT, "%d,%s,%s,%.3f,%s%n", round, system, what, value, unit));
  }

  /** One Markdown row per measurement and system: median, range, ratios to the references. */
  private void report() {
    System.out.printf("%n| measurement | system | median | range | Braid / reference |%n");
    System.out.println("|---|---|---|---|---|");
    for (String what : units.keySet()) {
      String unit = units.get(what);
      Double localMedian = median(what + "|" + LOCAL);
      Double bindMedian = median(what + "|" + BINDFS);
      for (String system : List.of(LOCAL, BINDFS, BRAID)) {
        List<Double> v = samples.get(what + "|" + system);
        if (v == null) {
          continue;
        }
        double m = median(v);
        String ratio = "";
        if (system.equals(BRAID)) {
          // For rates Braid / reference; for times reference / Braid, so that 1 is parity and
          // more is better in both.
          List<String> parts = new ArrayList<>();
          if (localMedian != null) {
            parts.add(ratio(m, localMedian, unit) + " x local");
          }
          if (bindMedian != null) {
            parts.add(ratio(m, bindMedian, unit) + " x bindfs");
          }
          ratio = String.join(", ", parts);
          if ("s".equals(unit) && localMedian != null) {
            ratio += String.format(Locale.ROOT, " (time %.2f x local)", m / localMedian);
          }
        }
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %.1f %s | %.1f-%.1f | %s |%n",
            what,
            system,
            m,
            unit,
            Collections.min(v),
            Collections.max(v),
            ratio);
      }
    }
  }

  private static String ratio(double braid, double reference, String unit) {
    double r = "s".equals(unit) ? reference / braid : braid / reference;
    return String.format(Locale.ROOT, "%.2f", r);
  }

  private @Nullable Double median(String key) {
    List<Double> v = samples.get(key);
    return v == null ? null : median(v);
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void writeRandom(Path f, long bytes) throws IOException {
    byte[] b = new byte[1 << 20];
    Random r = new Random(42);
    try (OutputStream o = Files.newOutputStream(f)) {
      for (long done = 0; done < bytes; done += b.length) {
        r.nextBytes(b);
        o.write(b, 0, (int) Math.min(b.length, bytes - done));
      }
    }
  }

  private static int sh(Path cwd, String command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("bash", "-c", command).directory(cwd.toFile()).inheritIO().start();
    if (!p.waitFor(2, TimeUnit.HOURS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + command);
    }
    return p.exitValue();
  }

  private static String capture(String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
    String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    p.waitFor();
    return s;
  }

  private static void check(int exit, String what) throws IOException {
    if (exit != 0) {
      throw new IOException("failed (exit " + exit + "): " + what);
    }
  }

  private static void deleteTree(Path p) throws IOException, InterruptedException {
    if (Files.exists(p)) {
      check(sh(requireNonNull(p.getParent()), "rm -rf " + p), "rm -rf " + p); // a scratch dir's
    }
  }
}
