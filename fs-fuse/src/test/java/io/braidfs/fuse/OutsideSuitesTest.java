package io.braidfs.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.testing.MiniCluster;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount gated by outside tools (issue 24), on a MiniCluster of three data servers at
 * replication 1, mounted twice with the default options (read-ahead on): fsx with pread/pwrite,
 * mapped reads and writes, truncates, close/open, fsync and msync invalidation, on three seeds;
 * SQLite in WAL mode with one transaction per row, checked through the writing mount and on a copy
 * read through the second. Longer fsx runs are in the benchmark driver (docs/benchmarks.md). The
 * number of fsx operations per seed is {@code -Dbraid.outside.fsx.ops} (200,000 by default, as
 * issue 24 asks; about 17 minutes on a 2-core machine).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutsideSuitesTest {
  private static final int FSX_OPS = Integer.getInteger("braid.outside.fsx.ops", 200_000);
  private static final int SQLITE_ROWS = 10_000;

  @TempDir static Path tmp;

  private MiniCluster cluster;
  private BraidMount one;
  private BraidMount two;
  private ResourceLeakDetector.Level leakLevel = ResourceLeakDetector.getLevel();

  @BeforeAll
  void mountTwice() throws IOException {
    FuseTesting.assumeFuse();
    // Paranoid leak detection records a stack trace at every buffer access (80,000 a second
    // here), which made fsx a third slower; sampled detection still reports a leak.
    leakLevel = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
    // pjdfstest's tests run as other users too: they must reach the mounts through tmp.
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    // One replica of each chunk: a read that fails has no other replica to fall back on, so a
    // fault of the data path shows here instead of being hidden by a failover (a truncate racing
    // a zero-copy read did exactly that at replication 3, and broke fsx at 1).
    cluster =
        MiniCluster.builder(tmp.resolve("cluster"))
            .dataServers(3)
            .config("braid.mds.layout.replication", "1")
            .build();
    cluster.start();
    BraidConfig config = BraidFusePosixTest.config(cluster);
    one =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("1")), config, MountOptions.defaults());
    // The second mount caches no attributes: pjdfstestHardLinksPassWithoutAttributeCaching.
    two =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("2")),
            config,
            MountOptions.defaults().withAttrTimeout(Duration.ZERO));
  }

  @AfterAll
  void unmount() {
    for (AutoCloseable c : new AutoCloseable[] {two, one, cluster}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // the next one still closes
        }
      }
    }
    ResourceLeakDetector.setLevel(leakLevel);
  }

  /** Copies a resource of this test to {@code tmp} and returns its path. */
  private static Path resource(String name) throws IOException {
    Path p = tmp.resolve(name);
    try (InputStream in = OutsideSuitesTest.class.getResourceAsStream("/outside/" + name)) {
      Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
    }
    return p;
  }

  /** fsx on three seeds at once, each on its own file (they wait on fsync more than on CPU). */
  @Test
  @Timeout(value = 40, unit = TimeUnit.MINUTES)
  void fsxOnThreeSeeds() throws Exception {
    Path fsx = OutsideTools.require("fsx", "cargo install --locked fsx --version 0.3.2");
    Path config = resource("fsx.toml");
    Path files = Files.createDirectories(one.directory().resolve("fsx"));
    Map<Integer, CompletableFuture<OutsideTools.Result>> runs = new TreeMap<>();
    for (int seed : new int[] {1, 2, 3}) {
      Path logs = Files.createDirectories(tmp.resolve("fsx-" + seed));
      List<String> command =
          List.of(
              fsx.toString(),
              "-f",
              config.toString(),
              "-N",
              Integer.toString(FSX_OPS),
              "-S",
              Integer.toString(seed),
              "-P",
              logs.toString(),
              files.resolve("f" + seed).toString());
      runs.put(
          seed,
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return OutsideTools.run(
                      command, logs, logs.resolve("output"), Duration.ofMinutes(35));
                } catch (IOException | InterruptedException e) {
                  throw new CompletionException(e);
                }
              }));
    }
    for (Map.Entry<Integer, CompletableFuture<OutsideTools.Result>> e : runs.entrySet()) {
      OutsideTools.Result r = e.getValue().join();
      assertThat(r.exit())
          .as(
              "fsx seed %d exit status (%d operations); its last output:%n%s",
              e.getKey(), FSX_OPS, r.tail())
          .isZero();
      assertThat(r.tail()).contains("All operations completed A-OK!");
    }
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void sqliteInWalModeKeepsItsIndexWhole() throws Exception {
    Path python = OutsideTools.require("python3", "apt-get install python3");
    Path script = resource("sqlite_wal_torture.py");
    Path db = Files.createDirectories(one.directory().resolve("sqlite")).resolve("t.db");
    OutsideTools.Result w =
        OutsideTools.run(
            List.of(python.toString(), script.toString(), "write", db.toString(), "" + SQLITE_ROWS),
            tmp,
            tmp.resolve("sqlite-write.log"),
            Duration.ofMinutes(15));
    assertThat(w.exit()).as("SQLite on the mount:%n%s", w.tail()).isZero();
    assertThat(w.tail()).contains("ok " + SQLITE_ROWS);

    // A copy read through the second mount (another client of the cluster) is whole too.
    Path copy = tmp.resolve("copy.db");
    Files.copy(two.directory().resolve("sqlite/t.db"), copy, StandardCopyOption.REPLACE_EXISTING);
    OutsideTools.Result c =
        OutsideTools.run(
            List.of(
                python.toString(), script.toString(), "check", copy.toString(), "" + SQLITE_ROWS),
            tmp,
            tmp.resolve("sqlite-check.log"),
            Duration.ofMinutes(5));
    assertThat(c.exit()).as("the copy read through the second mount:%n%s", c.tail()).isZero();
  }

  /**
   * pjdfstest's whole suite, as root (its tests switch users), on the mount with default options:
   * nothing fails but the expected failures of pjdfstest.toml.
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void pjdfstest() throws Exception {
    Path pjdfstest =
        OutsideTools.require("pjdfstest", "cargo install --locked pjdfstest --version 0.2.2");
    Assumptions.assumeTrue(FuseTesting.isRoot(), "skipped: pjdfstest switches users, run as root");
    Path config = resource("pjdfstest.toml");
    Path log = tmp.resolve("pjdfstest.log");
    OutsideTools.Result r = runPjdfstest(pjdfstest, config, one, "whole", log, List.of());
    String out = Files.readString(log);
    List<String> failed = failures(out);
    assertThat(failed)
        .as("pjdfstest failures; its output is in %s; summary:%n%s", log, r.tail())
        .isEmpty();
    assertThat(expectedFailures(config)).containsAll(outcomes(out, "failed as expected"));
    assertThat(r.exit()).as("pjdfstest exit status:%n%s", r.tail()).isZero();
  }

  /**
   * The hard-link expected failures are the kernel's attribute cache, one inode per name: on a
   * mount that caches no attributes (the second, attr_timeout=0) they pass.
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void pjdfstestHardLinksPassWithoutAttributeCaching() throws Exception {
    Path pjdfstest =
        OutsideTools.require("pjdfstest", "cargo install --locked pjdfstest --version 0.2.2");
    Assumptions.assumeTrue(FuseTesting.isRoot(), "skipped: pjdfstest switches users, run as root");
    Path config = resource("pjdfstest.toml");
    List<String> hardLinks = expectedFailures(config);
    assertThat(hardLinks).hasSize(30);
    Path plain = tmp.resolve("pjdfstest-plain.toml");
    Files.writeString(
        plain, Files.readString(config).replaceAll("(?s)expected_failures = \\[.*?\\]\n", ""));
    Path log = tmp.resolve("pjdfstest-links.log");
    // pjdfstest filters by test, not by file type: run each test whole, with all its file types.
    List<String> tests =
        hardLinks.stream().map(n -> n.substring(0, n.lastIndexOf("::"))).distinct().toList();
    OutsideTools.Result r = runPjdfstest(pjdfstest, plain, two, "links", log, tests);
    assertThat(outcomes(Files.readString(log), "ok")).as("%s", r.tail()).containsAll(hardLinks);
  }

  private OutsideTools.Result runPjdfstest(
      Path pjdfstest, Path config, BraidMount on, String name, Path log, List<String> tests)
      throws IOException, InterruptedException {
    // Short: a unix socket's path, which pjdfstest makes below it, has room for 107 bytes.
    Path dir = Files.createDirectories(on.directory().resolve("p" + name.charAt(0)));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path secondary = Files.createDirectories(tmp.resolve("pjdfstest-secondary-" + name));
    List<String> command =
        new ArrayList<>(
            List.of(
                pjdfstest.toString(),
                "-c",
                config.toString(),
                "-p",
                dir.toString(),
                "-s",
                secondary.toString()));
    command.addAll(tests);
    return OutsideTools.run(command, dir, log, Duration.ofMinutes(15));
  }

  /** The names of the tests pjdfstest printed with {@code outcome}. */
  private static List<String> outcomes(String output, String outcome) {
    return output
        .lines()
        .filter(l -> l.matches("^\\S+\\s+" + Pattern.quote(outcome) + "$"))
        .map(l -> l.substring(0, l.indexOf(' ')))
        .toList();
  }

  /** The tests pjdfstest printed as FAILED, each with the first line of its reason. */
  private static List<String> failures(String output) {
    List<String> lines = output.lines().toList();
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.matches("^\\S+\\s+FAILED$")) {
        String why = i + 1 < lines.size() ? lines.get(i + 1).strip() : "";
        failed.add(l.substring(0, l.indexOf(' ')) + ": " + why);
      }
    }
    return failed;
  }

  /** The expected_failures list of a pjdfstest configuration. */
  private static List<String> expectedFailures(Path config) throws IOException {
    String toml = Files.readString(config);
    String list = toml.substring(toml.indexOf("expected_failures = ["));
    list = list.substring(0, list.indexOf(']'));
    return list.lines()
        .map(String::strip)
        .filter(l -> l.startsWith("\""))
        .flatMap(l -> Pattern.compile("\"([^\"]+)\"").matcher(l).results().map(m -> m.group(1)))
        .toList();
  }
}
