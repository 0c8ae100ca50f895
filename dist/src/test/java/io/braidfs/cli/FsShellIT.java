package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hadoop fs} on {@code braid://} without a Hadoop distribution: Hadoop's {@code
 * org.apache.hadoop.fs.FsShell} in a JVM of its own whose classpath is exactly
 *
 * <ol>
 *   <li>a conf directory with {@code core-site.xml} ({@code fs.defaultFS=braid://127.0.0.1:PORT};
 *       FsShell insists on finding one) and a {@code logback.xml} (WARN and up, to stderr, but for
 *       NativeCodeLoader's warning that libhadoop is missing),
 *   <li>{@code hadoop-client-api} and {@code hadoop-client-runtime} 3.5.0,
 *   <li>a logging binding: {@code slf4j-api}, {@code logback-classic}, {@code logback-core},
 *   <li>{@code fs-hadoop-VERSION-shaded.jar},
 * </ol>
 *
 * <p>which proves the shaded jar works alone: no {@code fs.braid.impl} (its {@code
 * META-INF/services} entry registers the scheme), nothing of Braid's but that jar. The cluster is
 * {@code ./braid local} with 3 data servers ({@link LocalBraid}). Failsafe passes the jars' paths
 * as {@code braid.it.jar.*} system properties (dist's pom.xml); without them its tests are skipped.
 *
 * <p>Checks, with exit codes, stdout and stderr (empty on success) of each command: {@code -mkdir
 * -p}; {@code -put} of a 3 MiB random file and a small one; {@code -ls} by path and by full URI
 * (types, sizes); {@code -cat} and {@code -get} (byte for byte); {@code -du -s} (the sum of the
 * sizes); {@code -stat '%n %b %r %o %y'}; {@code -checksum} of a glob (a COMPOSITE-CRC32C per file,
 * equal for equal content, different otherwise); {@code -mv} then {@code -test -e}; {@code -rm -r
 * -skipTrash}; and failures that must exit with 1 and say why: {@code -ls} and {@code -cat} of a
 * missing path ("No such file or directory"), {@code -put} onto an existing file ("File exists"),
 * {@code -mkdir} under a file (which must create nothing).
 *
 * <p>Thread-safety: JUnit runs it on one thread.
 */
@Timeout(180)
class FsShellIT {
  private static final long COMMAND_TIMEOUT_SECONDS = 60;
  private static final String[] JARS = {
    "hadoop-client-api",
    "hadoop-client-runtime",
    "slf4j-api",
    "logback-classic",
    "logback-core",
    "fs-hadoop-shaded",
  };

  /**
   * One {@code -ls} entry: type and permissions, then replication, owner and group (read loosely:
   * columns an FS leaves empty collapse), size, date, path.
   */
  private static final Pattern LS_LINE =
      Pattern.compile(
          "([d-])[rwxst-]{9}\\+?\\s+.*?\\s(\\d+)\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\s+(.+)");

  @TempDir static Path tmp;

  private static @Nullable LocalBraid braid;
  private static @Nullable String classpath;

  @BeforeAll
  static void startBraid() throws IOException, InterruptedException {
    if (!jarsGiven()) {
      return; // each test is skipped, see onlyWithTheJars
    }
    List<String> entries = new ArrayList<>();
    Path conf = Files.createDirectories(tmp.resolve("conf"));
    entries.add(conf.toString());
    for (String jar : JARS) {
      String path = System.getProperty("braid.it.jar." + jar);
      assertThat(Path.of(path)).as(jar).isRegularFile();
      entries.add(path);
    }
    classpath = String.join(File.pathSeparator, entries);
    braid = LocalBraid.start(tmp);
    Files.writeString(
        conf.resolve("core-site.xml"),
        "<configuration>\n"
            + "  <property><name>fs.defaultFS</name><value>braid://"
            + braid.authority()
            + "</value></property>\n"
            + "</configuration>\n");
    Files.writeString(
        conf.resolve("logback.xml"),
        "<configuration>\n"
            + "  <appender name=\"stderr\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
            + "    <target>System.err</target>\n"
            + "    <encoder><pattern>%level %logger: %msg%n</pattern></encoder>\n"
            + "  </appender>\n"
            // Expected on any machine without libhadoop; says nothing about Braid.
            + "  <logger name=\"org.apache.hadoop.util.NativeCodeLoader\" level=\"ERROR\"/>\n"
            + "  <root level=\"WARN\"><appender-ref ref=\"stderr\"/></root>\n"
            + "</configuration>\n");
  }

  /**
   * Skips each test where failsafe gave no jar paths (its spark-it execution, with {@code
   * -Dit.test=FsShellIT}). Skipping here rather than in {@code @BeforeAll} gets the tests counted:
   * failsafe writes no summary for an execution that ran none, which would leave the merged summary
   * to a stale file from an earlier build.
   */
  @BeforeEach
  void onlyWithTheJars() {
    assumeThat(jarsGiven())
        .as(
            "braid.it.jar.* system properties (set by failsafe's default execution, dist's pom.xml)")
        .isTrue();
  }

  private static boolean jarsGiven() {
    for (String jar : JARS) {
      if (System.getProperty("braid.it.jar." + jar) == null) {
        return false;
      }
    }
    return true;
  }

  @AfterAll
  static void stopBraid() {
    if (braid != null) {
      braid.close();
    }
  }

  @Test
  void putListCatGetDuStatMoveRemove() throws Exception {
    byte[] big = randomBytes(3 * 1024 * 1024 + 123, 1);
    Path bigFile = Files.write(tmp.resolve("big.bin"), big);
    byte[] small = "hello from hadoop fs\n".getBytes(StandardCharsets.UTF_8);
    Path smallFile = Files.write(tmp.resolve("small.txt"), small);

    ok("-mkdir", "-p", "/shell/a/b");
    ok("-put", bigFile.toString(), smallFile.toString(), "/shell/a/");

    Result ls = ok("-ls", "/shell/a");
    assertThat(ls.lines()).first().isEqualTo("Found 3 items");
    Map<String, LsEntry> entries = parseLs(ls);
    assertThat(entries).containsOnlyKeys("/shell/a/b", "/shell/a/big.bin", "/shell/a/small.txt");
    assertThat(entries.get("/shell/a/b")).isEqualTo(new LsEntry(true, 0));
    assertThat(entries.get("/shell/a/big.bin")).isEqualTo(new LsEntry(false, big.length));
    assertThat(entries.get("/shell/a/small.txt")).isEqualTo(new LsEntry(false, small.length));

    String uri = "braid://" + braidNow().authority() + "/shell/a/big.bin";
    assertThat(parseLs(ok("-ls", uri))).containsExactly(entry(uri, new LsEntry(false, big.length)));

    assertThat(ok("-cat", "/shell/a/small.txt").stdout()).isEqualTo(small);

    Path back = tmp.resolve("big.back");
    ok("-get", "/shell/a/big.bin", back.toString());
    assertThat(Files.readAllBytes(back)).isEqualTo(big);

    List<String> du = ok("-du", "-s", "/shell/a").lines();
    assertThat(du).hasSize(1);
    String[] duFields = du.get(0).trim().split("\\s+");
    assertThat(duFields).hasSize(3);
    assertThat(Long.parseLong(duFields[0])).isEqualTo(big.length + small.length);
    assertThat(Long.parseLong(duFields[1])).isGreaterThanOrEqualTo(big.length + small.length);
    assertThat(duFields[2]).isEqualTo("/shell/a");

    List<String> stat = ok("-stat", "%n %b %r %o %y", "/shell/a/big.bin").lines();
    assertThat(stat).hasSize(1);
    Matcher m =
        Pattern.compile("big\\.bin (\\d+) (\\d+) (\\d+) \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}")
            .matcher(stat.get(0));
    assertThat(m.matches()).as("-stat output: %s", stat.get(0)).isTrue();
    assertThat(Long.parseLong(m.group(1))).as("%b").isEqualTo(big.length);
    assertThat(Integer.parseInt(m.group(2))).as("%r").isPositive();
    assertThat(Long.parseLong(m.group(3))).as("%o").isPositive();

    ok("-mv", "/shell/a/big.bin", "/shell/a/b/moved.bin");
    assertThat(fs("-test", "-e", "/shell/a/big.bin").exit()).isEqualTo(1);
    assertThat(ok("-stat", "%F %b", "/shell/a/b/moved.bin").lines())
        .containsExactly("regular file " + big.length);

    assertThat(ok("-rm", "-r", "-skipTrash", "/shell/a").lines())
        .containsExactly("Deleted /shell/a");
    assertThat(ok("-ls", "/shell").lines()).isEmpty();
  }

  @Test
  void checksumIsACompositeCrcThatFollowsTheContent() throws Exception {
    byte[] data = randomBytes(1024 * 1024 + 7, 2);
    byte[] other = data.clone();
    other[other.length / 2] ^= 1;
    ok("-mkdir", "-p", "/sums");
    ok(
        "-put",
        Files.write(tmp.resolve("one.bin"), data).toString(),
        Files.write(tmp.resolve("two.bin"), data).toString(),
        Files.write(tmp.resolve("three.bin"), other).toString(),
        "/sums/");

    // One run, a glob: a line per file, in name order.
    Map<String, String> sums = checksums("/sums/*.bin");
    assertThat(sums).containsOnlyKeys("/sums/one.bin", "/sums/two.bin", "/sums/three.bin");
    assertThat(sums.get("/sums/two.bin")).isEqualTo(sums.get("/sums/one.bin"));
    assertThat(sums.get("/sums/three.bin")).isNotEqualTo(sums.get("/sums/one.bin"));
  }

  @Test
  void failuresExitWithOneAndSayWhy() throws Exception {
    Result ls = fs("-ls", "/no/such/dir");
    assertThat(ls.exit()).isEqualTo(1);
    assertThat(ls.stderrText()).contains("`/no/such/dir': No such file or directory");

    Result cat = fs("-cat", "/no/such/file");
    assertThat(cat.exit()).isEqualTo(1);
    assertThat(cat.stderrText()).contains("`/no/such/file': No such file or directory");

    Path local = Files.writeString(tmp.resolve("exists.txt"), "x\n");
    ok("-mkdir", "-p", "/errors");
    ok("-put", local.toString(), "/errors/exists.txt");
    Result again = fs("-put", local.toString(), "/errors/exists.txt");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.stderrText()).contains("`/errors/exists.txt': File exists");

    Result underFile = fs("-mkdir", "/errors/exists.txt/sub");
    assertThat(underFile.exit()).as("%s", underFile).isEqualTo(1);
    assertThat(underFile.stderrText()).startsWith("mkdir: ");
    assertThat(fs("-test", "-e", "/errors/exists.txt/sub").exit()).isEqualTo(1);
  }

  /**
   * {@code -checksum pattern}'s digest per file; each must be a composite CRC32C (4 bytes, as HDFS
   * prints it), not {@code NONE}.
   */
  private static Map<String, String> checksums(String pattern) throws Exception {
    Map<String, String> sums = new HashMap<>();
    for (String line : ok("-checksum", pattern).lines()) {
      String[] fields = line.split("\t");
      assertThat(fields).as("-checksum line: %s", line).hasSize(3);
      assertThat(fields[1]).as("-checksum line: %s", line).isEqualTo("COMPOSITE-CRC32C");
      assertThat(fields[2]).as("-checksum line: %s", line).matches("[0-9a-f]{8}");
      sums.put(fields[0], fields[2]);
    }
    return sums;
  }

  private static Map<String, LsEntry> parseLs(Result ls) {
    Map<String, LsEntry> entries = new HashMap<>();
    for (String line : ls.lines()) {
      if (line.startsWith("Found ")) {
        continue;
      }
      Matcher m = LS_LINE.matcher(line);
      assertThat(m.matches()).as("-ls line: %s", line).isTrue();
      entries.put(m.group(3), new LsEntry(m.group(1).equals("d"), Long.parseLong(m.group(2))));
    }
    return entries;
  }

  private record LsEntry(boolean directory, long size) {}

  /** Runs {@code fs args...}; fails unless it exits with 0 and writes nothing to stderr. */
  private static Result ok(String... args) throws IOException, InterruptedException {
    Result r = fs(args);
    assertThat(r.exit()).as("exit code of %s", r).isZero();
    assertThat(r.stderrText()).as("stderr of %s", r).isEmpty();
    return r;
  }

  /** Runs {@code java -cp <conf and the jars> org.apache.hadoop.fs.FsShell args...} to its end. */
  private static Result fs(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1"); // starts faster; this is not about speed
    command.add("-cp");
    command.add(classpathNow());
    command.add("org.apache.hadoop.fs.FsShell");
    command.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "fs", ".out");
    Path err = Files.createTempFile(tmp, "fs", ".err");
    Process p =
        new ProcessBuilder(command)
            .directory(tmp.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .start();
    p.getOutputStream().close();
    if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("hadoop fs %s did not end within %d s", List.of(args), COMMAND_TIMEOUT_SECONDS);
    }
    return new Result(
        List.of(args), p.exitValue(), Files.readAllBytes(out), Files.readAllBytes(err));
  }

  /** One FsShell run: its arguments, exit code and output. */
  private record Result(List<String> args, int exit, byte[] stdout, byte[] stderr) {
    List<String> lines() {
      String text = new String(stdout, StandardCharsets.UTF_8);
      return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    String stderrText() {
      return new String(stderr, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return "hadoop fs "
          + String.join(" ", args)
          + " (exit "
          + exit
          + ")\nstdout: "
          + new String(stdout, StandardCharsets.UTF_8)
          + "\nstderr: "
          + stderrText();
    }
  }

  private static byte[] randomBytes(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static String classpathNow() {
    String cp = classpath;
    if (cp == null) {
      throw new IllegalStateException("no classpath: startBraid did not run");
    }
    return cp;
  }

  private static LocalBraid braidNow() {
    LocalBraid b = braid;
    if (b == null) {
      throw new IllegalStateException("Braid did not start");
    }
    return b;
  }
}
