package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.BraidClient;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.testing.Await;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code braid fs} subcommand against a {@code braid local} running in this JVM (3 data
 * servers, shared by the tests, each working under its own directory): output, exit codes, and the
 * one-line errors (exit code 1 naming the path and the status; exit code 2 for a bad command line).
 */
class FsCommandTest {
  /** The URI line of braid local's ready text; the port in group 1. */
  static final Pattern URI = Pattern.compile("\\s*URI:\\s+braid://127\\.0\\.0\\.1:(\\d+)/");

  @TempDir static Path tmp;

  private static InProcessBraid local;
  private static String mds = "";

  /** The outcome of one {@code braid} run: exit code, text on stdout, bytes on stdout, stderr. */
  record Run(int code, String out, byte[] bytes, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }

    List<String> outLines() {
      return out.lines().toList();
    }
  }

  @BeforeAll
  static void startLocal() {
    local =
        new InProcessBraid(
            "local",
            "--data-servers",
            "3",
            "--data",
            tmp.resolve("cluster").toString(),
            "--mds-port",
            "0");
    local.awaitLine(Pattern.compile(Pattern.quote(LocalCommand.READY) + ".*"));
    Matcher m = local.awaitLine(URI);
    mds = "127.0.0.1:" + m.group(1);
  }

  @AfterAll
  static void stopLocal() throws InterruptedException {
    if (local == null) {
      return;
    }
    local.stop.request();
    assertThat(local.awaitExit()).isEqualTo(Braid.EXIT_OK);
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  /** {@code braid fs --mds <local> args...} with {@code stdin} as its standard input. */
  static Run fsWithInput(byte[] stdin, String... args) {
    List<String> all = new ArrayList<>(List.of("fs", "--mds", mds));
    all.addAll(List.of(args));
    return braidWithInput(stdin, all.toArray(String[]::new));
  }

  /** {@code braid fs --mds <mds> args...}, for tests with a cluster of their own. */
  static Run fsAt(String mds, String... args) {
    List<String> all = new ArrayList<>(List.of("fs", "--mds", mds));
    all.addAll(List.of(args));
    return braid(all.toArray(String[]::new));
  }

  /** {@code braid args...} in this JVM, to its end. */
  static Run braid(String... args) {
    return braidWithInput(new byte[0], args);
  }

  private static Run braidWithInput(byte[] stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code =
        Braid.commandLine(
                new StopSignal(),
                new ByteArrayInputStream(stdin),
                bytes,
                new PrintWriter(out, true),
                new PrintWriter(err, true))
            .execute(args);
    return new Run(code, out.toString(), bytes.toByteArray(), err.toString());
  }

  static Run fs(String... args) {
    return fsWithInput(new byte[0], args);
  }

  /** Runs {@code args} and checks that it succeeded without a word on stderr. */
  static Run ok(String... args) {
    Run r = fs(args);
    assertThat(r.err()).as("stderr of %s", List.of(args)).isEmpty();
    assertThat(r.code()).as("exit code of %s", List.of(args)).isZero();
    return r;
  }

  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void putGetAndCatCopyBytesExactlyAndLeaveNoTemporaryFile() throws IOException {
    byte[] big = random(5 << 20, 1);
    Path local = tmp.resolve("big.bin");
    Files.write(local, big);
    ok("mkdir", "/copy");
    assertThat(ok("put", local.toString(), "/copy/big.bin").out()).isEmpty();

    Path back = tmp.resolve("big.back");
    ok("get", "/copy/big.bin", back.toString());
    assertThat(Files.readAllBytes(back)).isEqualTo(big);
    assertThat(ok("cat", "/copy/big.bin").bytes()).isEqualTo(big);

    // Into a directory, the file keeps its name; from stdin with "-".
    Path small = tmp.resolve("small.txt");
    Files.writeString(small, "hello braid\n");
    ok("put", small.toString(), "/copy");
    Run stdin = fsWithInput("from stdin".getBytes(StandardCharsets.UTF_8), "put", "-", "/copy/in");
    assertThat(stdin.code()).as(stdin.err()).isZero();
    assertThat(ok("cat", "/copy/small.txt", "/copy/in").bytes())
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("hello braid\nfrom stdin");
    Path dir = Files.createDirectory(tmp.resolve("out"));
    ok("get", "/copy/small.txt", dir.toString());
    assertThat(dir.resolve("small.txt")).hasContent("hello braid");
    assertThat(dir).isDirectoryNotContaining("glob:**_COPYING_");

    assertThat(ok("ls", "/copy").outLines())
        .hasSize(3)
        .noneMatch(l -> l.contains(FsDataCommands.COPYING));
  }

  @Test
  void cpCopiesFilesAndWholeTreesAndReplacesOnlyWithForce() throws IOException {
    byte[] big = random(3 << 20, 7);
    Path local = tmp.resolve("cp-big.bin");
    Files.write(local, big);
    ok("mkdir", "-p", "/cpsrc/sub/deeper", "/cpdst");
    ok("put", local.toString(), "/cpsrc/big.bin");
    ok("put", "-", "/cpsrc/sub/deeper/small"); // empty
    Files.writeString(tmp.resolve("cp-text"), "text");
    ok("put", tmp.resolve("cp-text").toString(), "/cpsrc/sub/text");

    // A file, to a new name and into a directory (a path without a leading / is from the root).
    assertThat(ok("cp", "/cpsrc/big.bin", "/cpdst/copy.bin").out()).isEmpty();
    assertThat(ok("cat", "/cpdst/copy.bin").bytes()).isEqualTo(big);
    ok("cp", "cpsrc/sub/text", "/cpdst");
    assertThat(ok("cat", "/cpdst/text").bytes()).asString(StandardCharsets.UTF_8).isEqualTo("text");

    // A directory is copied whole, with or without -r, as hdfs dfs -cp does.
    ok("cp", "/cpsrc", "/cptree");
    assertThat(ok("ls", "-R", "/cptree").outLines())
        .extracting(l -> l.substring(l.lastIndexOf(' ') + 1))
        .containsExactly(
            "/cptree/big.bin",
            "/cptree/sub",
            "/cptree/sub/deeper",
            "/cptree/sub/deeper/small",
            "/cptree/sub/text");
    assertThat(ok("cat", "/cptree/big.bin").bytes()).isEqualTo(big);
    assertThat(new String(ok("cat", "/cptree/sub/text").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("text");
    ok("cp", "-r", "/cpsrc/sub", "/cpdst"); // into the existing directory, as sub
    assertThat(new String(ok("cat", "/cpdst/sub/text").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("text");
    assertThat(ok("ls", "-R", "/cpdst").out()).doesNotContain(FsDataCommands.COPYING);

    // An existing file is replaced only with -f; the failure names it.
    Run again = fs("cp", "/cpsrc/sub/text", "/cpdst/copy.bin");
    assertThat(again.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(again.errLines())
        .containsExactly("braid fs cp: /cpdst/copy.bin: file exists (use -f to replace it)");
    assertThat(ok("cat", "/cpdst/copy.bin").bytes()).isEqualTo(big);
    ok("cp", "-f", "/cpsrc/sub/text", "/cpdst/copy.bin");
    assertThat(new String(ok("cat", "/cpdst/copy.bin").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("text");

    // Several sources need a directory; a directory does not go into itself; -p keeps attributes.
    Run several = fs("cp", "/cpsrc/big.bin", "/cpsrc/sub/text", "/cpdst/none");
    assertThat(several.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(several.errLines())
        .containsExactly(
            "braid fs cp: /cpdst/none: no such directory (copying several sources needs one)");
    Run itself = fs("cp", "/cpsrc", "/cpsrc/sub");
    assertThat(itself.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(itself.errLines())
        .containsExactly(
            "braid fs cp: /cpsrc: cannot copy a directory into itself (/cpsrc/sub/cpsrc)");
    // Written with slashes to spare, it is still itself.
    Run slashes = fs("cp", "/cpsrc/", "/cpsrc//sub/x");
    assertThat(slashes.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(slashes.errLines())
        .containsExactly("braid fs cp: /cpsrc: cannot copy a directory into itself (/cpsrc/sub/x)");
    ok("chmod", "640", "/cpsrc/sub/text");
    ok("cp", "-p", "/cpsrc/sub/text", "/cpdst/kept");
    io.braidfs.client.FileAttributes src = attributes("/cpsrc/sub/text");
    io.braidfs.client.FileAttributes kept = attributes("/cpdst/kept");
    assertThat(kept.mode() & 07777).isEqualTo(0640);
    assertThat(kept.mtimeNanos()).isEqualTo(src.mtimeNanos());
    Run missing = fs("cp", "/cpsrc/nope", "/cpdst");
    assertThat(missing.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(missing.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs cp: /cpsrc/nope: ");
  }

  @Test
  void rmMovesToTheTrashAndExpungeCheckpointsIt() throws IOException {
    String me = System.getProperty("user.name");
    String trash = "/user/" + me + "/.Trash";
    String on = "braid.fs.trash.interval=1d";
    Files.writeString(tmp.resolve("trash-text"), "once");
    ok("mkdir", "-p", "/trashy/dir");
    ok("put", tmp.resolve("trash-text").toString(), "/trashy/f");
    ok("put", tmp.resolve("trash-text").toString(), "/trashy/dir/g");

    // Moved, with HDFS's line naming both places as braid:// URIs.
    assertThat(ok("-D", on, "rm", "/trashy/f").outLines())
        .containsExactly(
            "Moved: 'braid://"
                + mds
                + "/trashy/f' to trash at: braid://"
                + mds
                + trash
                + "/Current/trashy/f");
    assertThat(fs("test", "-e", "/trashy/f").code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(new String(ok("cat", trash + "/Current/trashy/f").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("once");
    assertThat(attributes(trash).mode() & 0777).isEqualTo(0700);

    // A symbolic link trashed earlier under the name of a later file's parent: the later file
    // goes to a renamed directory in the trash, never through the link to where it points.
    ok("mkdir", "-p", "/trashlinks/elsewhere");
    try (BraidClient c = client()) {
      c.symlink("/trashlinks/elsewhere", "/trashlinks/d", false);
    }
    ok("-D", on, "rm", "/trashlinks/d");
    ok("mkdir", "-p", "/trashlinks/d");
    ok("put", tmp.resolve("trash-text").toString(), "/trashlinks/d/h");
    String through = ok("-D", on, "rm", "/trashlinks/d/h").out().strip();
    assertThat(through).matches(".*to trash at: braid://.*/Current/trashlinks/d\\d+/h");
    assertThat(ok("ls", "/trashlinks/elsewhere").outLines()).isEmpty();

    // The same name again gets the time appended.
    ok("put", tmp.resolve("trash-text").toString(), "/trashy/f");
    String second = ok("-D", on, "rm", "/trashy/f").out().strip();
    assertThat(second)
        .matches(
            Pattern.quote("Moved: 'braid://" + mds + "/trashy/f' to trash at: braid://" + mds)
                + Pattern.quote(trash + "/Current/trashy/f")
                + "\\d{13}");
    assertThat(ok("ls", trash + "/Current/trashy").outLines()).hasSize(2);

    // rm -r of a directory; without the interval (the default) and with -skipTrash: deleted.
    ok("-D", on, "rm", "-r", "/trashy/dir");
    ok("test", "-f", trash + "/Current/trashy/dir/g");
    ok("put", tmp.resolve("trash-text").toString(), "/trashy/g");
    assertThat(ok("-D", on, "rm", "-skipTrash", "/trashy/g").out()).isEmpty();
    ok("put", tmp.resolve("trash-text").toString(), "/trashy/g");
    assertThat(ok("rm", "/trashy/g").out()).isEmpty();
    assertThat(fs("test", "-e", trash + "/Current/trashy/g").code()).isEqualTo(Braid.EXIT_FAILURE);
    // What is in the trash is deleted; what holds the trash is refused.
    assertThat(ok("-D", on, "rm", trash + "/Current/trashy/f").out()).isEmpty();
    assertThat(fs("test", "-e", trash + "/Current/trashy/f").code()).isEqualTo(Braid.EXIT_FAILURE);
    Run holds = fs("-D", on, "rm", "-r", "/user/" + me);
    assertThat(holds.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(holds.errLines())
        .containsExactly(
            "braid fs rm: /user/"
                + me
                + ": cannot move to the trash, as it holds the trash "
                + trash
                + " (use -skipTrash)");

    // expunge: a checkpoint older than the interval goes, a recent one stays, Current becomes one.
    java.time.format.DateTimeFormatter names = FsTrash.CHECKPOINT;
    java.time.LocalDateTime now = java.time.LocalDateTime.now();
    String old = names.format(now.minusDays(2));
    String recent = names.format(now.minusHours(1));
    ok("mkdir", trash + "/" + old, trash + "/" + recent);
    List<String> expunged = ok("-D", on, "expunge").outLines();
    assertThat(expunged).hasSize(2);
    assertThat(expunged.get(0))
        .isEqualTo("Deleted trash checkpoint: braid://" + mds + trash + "/" + old);
    assertThat(expunged.get(1))
        .startsWith("Created trash checkpoint: braid://" + mds + trash + "/")
        .matches(".*/\\.Trash/\\d{12}(-\\d+)?");
    String made = expunged.get(1).substring(expunged.get(1).lastIndexOf('/') + 1);
    assertThat(ok("ls", trash).outLines())
        .extracting(l -> l.substring(l.lastIndexOf(' ') + 1))
        .containsExactlyInAnyOrder(recent, made);
    ok("test", "-f", trash + "/" + made + "/trashy/dir/g");
    // Nothing in Current: nothing new.
    assertThat(ok("-D", on, "expunge").out()).isEmpty();
    ok("rm", "-r", trash);
  }

  @Test
  void braidUrisAsBraidLocalPrintsThemNameTheClusterAndThePath() throws IOException {
    String uri = "braid://" + mds;
    Files.writeString(tmp.resolve("uri-text"), "by uri");
    // Without --mds: the URI's authority is the MDS, as the URI braid local prints works as is.
    Run put = braid("fs", "put", tmp.resolve("uri-text").toString(), uri + "/uris/f");
    assertThat(put.err()).isEmpty();
    assertThat(put.code()).isZero();
    Run ls = braid("fs", "ls", uri + "/uris");
    assertThat(ls.code()).isZero();
    assertThat(ls.outLines()).singleElement().asString().endsWith("  f");
    assertThat(new String(braid("fs", "cat", uri + "/uris/f").bytes(), StandardCharsets.UTF_8))
        .isEqualTo("by uri");
    assertThat(braid("fs", "ls", uri + "/").outLines()).anyMatch(l -> l.endsWith("  uris"));
    // With --mds naming the same cluster it works too; naming another, or two clusters, not.
    assertThat(ok("mv", uri + "/uris/f", "/uris/g").code()).isZero();
    Run other = fsAt(mds, "ls", "braid://192.0.2.1:7400/uris");
    assertThat(other.code()).isNotZero();
    assertThat(other.err()).contains("--mds " + mds).contains("192.0.2.1:7400");
    Run two = braid("fs", "mv", uri + "/uris/g", "braid://192.0.2.1:7400/h");
    assertThat(two.code()).isNotZero();
    assertThat(two.err()).contains("different clusters");
    assertThat(ok("test", "-e", "/uris/g").code()).isZero();
  }

  @Test
  void helpListsCpTrashAndExpunge() {
    Run help = braid("fs", "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("cp", "expunge", "trash");
    assertThat(braid("fs", "rm", "--help").out()).contains("-skipTrash", ".Trash");
    assertThat(braid("fs", "cp", "--help").out()).contains("-f", "-p", "_COPYING_");
  }

  @Test
  void putAndGetRefuseToReplaceWithoutForce() throws IOException {
    Path a = tmp.resolve("a.txt");
    Path b = tmp.resolve("b.txt");
    Files.writeString(a, "first");
    Files.writeString(b, "second");
    ok("put", a.toString(), "/force.txt");

    Run again = fs("put", b.toString(), "/force.txt");
    assertThat(again.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(again.errLines())
        .containsExactly("braid fs put: /force.txt: file exists (use -f to replace it)");
    ok("put", "-f", b.toString(), "/force.txt");
    assertThat(ok("cat", "/force.txt").bytes())
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("second");

    Run get = fs("get", "/force.txt", a.toString());
    assertThat(get.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(get.errLines())
        .containsExactly("braid fs get: " + a + ": file exists (use -f to replace it)");
    assertThat(a).hasContent("first");
    ok("get", "-f", "/force.txt", a.toString());
    assertThat(a).hasContent("second");
  }

  /** A local tree of nested directories and files (one empty, one directory empty), by path. */
  private static Map<String, byte[]> localTree(Path root, long seed) throws IOException {
    Map<String, byte[]> files = new java.util.TreeMap<>();
    files.put("a.bin", random(3 << 20, seed));
    files.put("empty", new byte[0]);
    files.put("sub/b.txt", "bee\n".getBytes(StandardCharsets.UTF_8));
    files.put("sub/deeper/c.bin", random(1 << 20, seed + 1));
    files.put("sub/deeper/d.bin", random(70_000, seed + 2));
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      Path p = root.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.write(p, f.getValue());
    }
    Files.createDirectories(root.resolve("sub/nothing"));
    return files;
  }

  /** Every path under {@code root} whose name holds {@link FsDataCommands#COPYING}. */
  private static List<Path> localTemporaries(Path root) throws IOException {
    try (java.util.stream.Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> p.getFileName().toString().contains(FsDataCommands.COPYING)).toList();
    }
  }

  @Test
  void putAndGetCopyWholeDirectoriesAndRefuseExistingFilesOneByOne() throws IOException {
    Path tree = tmp.resolve("ptree");
    Map<String, byte[]> files = localTree(tree, 11);

    // To a new name: the directory becomes it; several files at a time.
    assertThat(ok("put", "-t", "3", tree.toString(), "/ptree").out()).isEmpty();
    assertThat(ok("ls", "-R", "/ptree").outLines())
        .extracting(l -> l.substring(l.lastIndexOf(' ') + 1))
        .containsExactly(
            "/ptree/a.bin",
            "/ptree/empty",
            "/ptree/sub",
            "/ptree/sub/b.txt",
            "/ptree/sub/deeper",
            "/ptree/sub/deeper/c.bin",
            "/ptree/sub/deeper/d.bin",
            "/ptree/sub/nothing");
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      assertThat(ok("cat", "/ptree/" + f.getKey()).bytes()).as(f.getKey()).isEqualTo(f.getValue());
    }

    // Into an existing directory, keeping its name (as hdfs dfs -put).
    ok("mkdir", "/pinto");
    ok("put", tree.toString(), "/pinto");
    assertThat(ok("cat", "/pinto/ptree/sub/deeper/c.bin").bytes())
        .isEqualTo(files.get("sub/deeper/c.bin"));

    // Again: each file there is refused on its own line, the missing one is still copied.
    ok("rm", "/pinto/ptree/sub/b.txt");
    Run again = fs("put", tree.toString(), "/pinto");
    assertThat(again.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(again.errLines())
        .containsExactlyInAnyOrder(
            "braid fs put: /pinto/ptree/a.bin: file exists (use -f to replace it)",
            "braid fs put: /pinto/ptree/empty: file exists (use -f to replace it)",
            "braid fs put: /pinto/ptree/sub/deeper/c.bin: file exists (use -f to replace it)",
            "braid fs put: /pinto/ptree/sub/deeper/d.bin: file exists (use -f to replace it)");
    assertThat(ok("cat", "/pinto/ptree/sub/b.txt").bytes()).isEqualTo(files.get("sub/b.txt"));
    ok("put", "-f", tree.toString(), "/pinto");
    assertThat(ok("ls", "-R", "/pinto").out()).doesNotContain(FsDataCommands.COPYING);

    // Out again, to a new local name, checked byte for byte.
    Path back = tmp.resolve("ptree-back");
    assertThat(ok("get", "-t", "2", "/ptree", back.toString()).out()).isEmpty();
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      assertThat(back.resolve(f.getKey())).as(f.getKey()).hasBinaryContent(f.getValue());
    }
    assertThat(back.resolve("sub/nothing")).isEmptyDirectory();
    assertThat(localTemporaries(back)).isEmpty();

    // Into an existing directory it keeps its name; files already there are refused one by one.
    Files.writeString(tree.resolve("sub/b.txt"), "changed");
    Files.delete(tree.resolve("sub/deeper/d.bin"));
    Run get = fs("get", "/ptree", tmp.toString());
    assertThat(get.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(get.errLines())
        .containsExactlyInAnyOrder(
            "braid fs get: " + tree.resolve("a.bin") + ": file exists (use -f to replace it)",
            "braid fs get: " + tree.resolve("empty") + ": file exists (use -f to replace it)",
            "braid fs get: " + tree.resolve("sub/b.txt") + ": file exists (use -f to replace it)",
            "braid fs get: "
                + tree.resolve("sub/deeper/c.bin")
                + ": file exists (use -f to replace it)");
    assertThat(tree.resolve("sub/b.txt")).hasContent("changed");
    assertThat(tree.resolve("sub/deeper/d.bin")).hasBinaryContent(files.get("sub/deeper/d.bin"));
    ok("get", "-f", "/ptree", tmp.toString());
    assertThat(tree.resolve("sub/b.txt")).hasBinaryContent(files.get("sub/b.txt"));
    assertThat(localTemporaries(tree)).isEmpty();

    // LOCAL given as a symlink to a directory is followed.
    Path link = Files.createSymbolicLink(tmp.resolve("ptree-link"), tree);
    ok("put", link.toString(), "/plink");
    assertThat(ok("cat", "/plink/sub/deeper/c.bin").bytes())
        .isEqualTo(files.get("sub/deeper/c.bin"));

    // A bad thread count is a usage error.
    assertThat(fs("put", "-t", "0", tree.toString(), "/pinto").code()).isEqualTo(Braid.EXIT_USAGE);
  }

  @Test
  void aStopDuringARecursivePutOrGetRemovesEveryPartialFile() throws Exception {
    Path tree = tmp.resolve("stoptree");
    for (int i = 0; i < 4; i++) {
      Files.createDirectories(tree.resolve("d" + i));
      Files.write(tree.resolve("d" + i).resolve("f"), random(48 << 20, 20 + i));
    }
    try (BraidClient c = client()) {
      stopWhen(
          () -> !remoteTemporaries(c, "/stoptree").isEmpty(),
          "put",
          "-t",
          "2",
          tree.toString(),
          "/stoptree");
      assertThat(remoteTemporaries(c, "/stoptree")).isEmpty();
    }

    ok("put", "-f", tree.toString(), "/stoptree");
    Path back = tmp.resolve("stoptree-back");
    stopWhen(
        () -> {
          try {
            return Files.exists(back) && !localTemporaries(back).isEmpty();
          } catch (IOException | java.io.UncheckedIOException e) {
            return false; // a file went while walking: look again
          }
        },
        "get",
        "-t",
        "2",
        "/stoptree",
        back.toString());
    assertThat(localTemporaries(back)).isEmpty();
  }

  /**
   * Runs {@code braid fs args...} on a thread, requests a stop once {@code partial} holds (a
   * temporary file is there), and checks that the command ended with exit code 1 saying so.
   */
  private static void stopWhen(java.util.function.BooleanSupplier partial, String... args)
      throws InterruptedException {
    StopSignal stop = new StopSignal();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of("fs", "--mds", mds));
    all.addAll(List.of(args));
    Thread t =
        new Thread(
            () ->
                stop.finished(
                    Braid.commandLine(
                            stop,
                            new ByteArrayInputStream(new byte[0]),
                            new ByteArrayOutputStream(),
                            new PrintWriter(new StringWriter(), true),
                            new PrintWriter(err, true))
                        .execute(all.toArray(String[]::new))),
            "test-stop-" + args[0]);
    t.start();
    Await.until("a partial file of " + args[0], Duration.ofSeconds(60), partial);
    stop.request();
    t.join(60_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(stop.exitCode()).as(err.toString()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(err.toString()).contains(": interrupted");
  }

  /**
   * Every path under Braid directory {@code dir} whose name holds {@link FsDataCommands#COPYING}.
   */
  private static List<String> remoteTemporaries(BraidClient c, String dir) {
    List<String> found = new ArrayList<>();
    try {
      if (!c.exists(dir)) {
        return found;
      }
      for (io.braidfs.client.DirectoryEntry e : c.list(dir)) {
        String p = dir + "/" + e.name();
        if (e.name().contains(FsDataCommands.COPYING)) {
          found.add(p);
        } else if (c.stat(p).isDirectory()) {
          found.addAll(remoteTemporaries(c, p));
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return found;
  }

  @Test
  void lsShowsModeOwnerGroupSizeTimeAndName() throws IOException {
    ok("mkdir", "-p", "/ls/sub");
    Path f = tmp.resolve("five");
    Files.writeString(f, "12345");
    ok("put", f.toString(), "/ls/five");

    List<String> lines = ok("ls", "/ls").outLines();
    assertThat(lines).hasSize(2);
    String user = System.getProperty("user.name");
    assertThat(lines.get(0))
        .matches("-rw-r--r--  " + user + "  \\S+\\s+5  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  five");
    assertThat(lines.get(1))
        .matches("drwxr-xr-x  " + user + "  \\S+\\s+0  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  sub");
    // A file is shown by itself, under the path given; a relative path starts at the root.
    assertThat(ok("ls", "ls/five").outLines()).singleElement().asString().endsWith("  /ls/five");
  }

  @Test
  void mkdirRmAndMv() throws IOException {
    ok("mkdir", "/m1", "/m2");
    Run exists = fs("mkdir", "/m1");
    assertThat(exists.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(exists.errLines())
        .containsExactly("braid fs mkdir: /m1: file exists (ALREADY_EXISTS)");
    ok("mkdir", "-p", "/m1", "/m1/a/b");

    Run notEmpty = fs("rm", "/m1");
    assertThat(notEmpty.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(notEmpty.errLines()).containsExactly("braid fs rm: /m1: is a directory (use rm -r)");

    // mv into an existing directory, then rename in place.
    ok("mv", "/m1", "/m2");
    ok("mv", "/m2/m1", "/m2/renamed");
    assertThat(ok("ls", "/m2").outLines()).singleElement().asString().endsWith("  renamed");
    // A file in the way: the message names it, not what was to move.
    Path f = tmp.resolve("in-the-way");
    Files.writeString(f, "x");
    ok("put", f.toString(), "/m2/file-a");
    ok("put", f.toString(), "/m2/file-b");
    Run inTheWay = fs("mv", "/m2/file-a", "/m2/file-b");
    assertThat(inTheWay.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(inTheWay.errLines())
        .containsExactly("braid fs mv: /m2/file-b: file exists (ALREADY_EXISTS)");
    // Into a directory holding that name: the entry in the way is named.
    ok("mkdir", "/m3");
    ok("put", f.toString(), "/m3/file-a");
    Run inside = fs("mv", "/m2/file-a", "/m3");
    assertThat(inside.errLines())
        .containsExactly("braid fs mv: /m3/file-a: file exists (ALREADY_EXISTS)");

    // rm goes on after a failure and exits 1.
    Run partly = fs("rm", "-r", "/nothing-here", "/m2");
    assertThat(partly.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(partly.errLines())
        .containsExactly("braid fs rm: /nothing-here: no such file or directory (NOT_FOUND)");
    assertThat(fs("stat", "/m2").code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(fs("rm", "-r", "/").errLines())
        .containsExactly("braid fs rm: /: will not remove the root");
  }

  @Test
  void statShowsEveryAttribute() throws IOException {
    Path f = tmp.resolve("stat.bin");
    Files.write(f, random(70_000, 2));
    ok("put", f.toString(), "/stat.bin");
    String out = ok("stat", "/stat.bin").out();
    assertThat(out.lines())
        .contains(
            "path:       /stat.bin",
            "type:       file",
            "size:       70000",
            "allocated:  70000",
            "mode:       0644 (-rw-r--r--)",
            "links:      1")
        .anyMatch(l -> l.equals("owner:      " + System.getProperty("user.name")))
        .anyMatch(
            l -> l.matches("modified: +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{9} .*"))
        .anyMatch(
            l ->
                l.matches(
                    "layout: +stripe-unit=1MiB stripe-width=3 chunk-size=64MiB replication=3"));
    assertThat(ok("stat", "/").out()).contains("type:       directory").doesNotContain("layout:");
  }

  @Test
  void lsAndStatShowSpecialFilesAndCatRefusesThem() throws IOException {
    ok("mkdir", "/special");
    try (io.braidfs.client.BraidClient c =
        io.braidfs.client.BraidClient.builder(
                io.braidfs.common.config.BraidConfig.fromMap(Map.of("braid.client.mds", mds)))
            .build()) {
      c.mknod("/special/p", io.braidfs.client.FileType.FIFO, 0644, 0);
      // makedev(259, 70000): both numbers use glibc's high bits.
      long dev = (259L << 8) | (70000L & 0xff) | ((70000L & ~0xffL) << 12);
      c.mknod("/special/b", io.braidfs.client.FileType.BLOCK_DEVICE, 0600, dev);
      c.mknod("/special/s", io.braidfs.client.FileType.SOCKET, 0755, 0);
    }
    assertThat(ok("ls", "/special").outLines())
        .extracting(l -> l.substring(0, 10) + " " + l.substring(l.lastIndexOf(' ') + 1))
        .containsExactly("brw------- b", "prw-r--r-- p", "srwxr-xr-x s");
    assertThat(ok("stat", "/special/b").out().lines())
        .contains("type:       block device", "device:     259,70000", "size:       0")
        .noneMatch(l -> l.startsWith("layout:"));
    assertThat(ok("stat", "/special/p").out()).contains("type:       fifo");
    Run cat = fs("cat", "/special/p");
    assertThat(cat.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(cat.err()).contains("/special/p").contains("not a regular file but a FIFO");
  }

  @Test
  void duCountsDataAndEveryReplica() throws IOException {
    ok("mkdir", "-p", "/du/sub");
    Path f = tmp.resolve("du.bin");
    Files.write(f, random(100_000, 3));
    ok("put", f.toString(), "/du/one");
    ok("put", f.toString(), "/du/sub/two");

    assertThat(ok("du", "/du").outLines())
        .containsExactly("100000  300000  /du/one", "100000  300000  /du/sub");
    assertThat(ok("du", "-s", "/du").outLines()).containsExactly("200000  600000  /du");
  }

  @Test
  void layoutSetChangesOnlyTheNamedFieldsAndNewFilesFollow() throws IOException {
    ok("mkdir", "/lay");
    assertThat(ok("layout", "get", "/lay").outLines())
        .containsExactly(
            "path:          /lay (directory)",
            "stripe-unit:   1MiB (inherited)",
            "stripe-width:  3 (inherited)",
            "chunk-size:    64MiB (inherited)",
            "replication:   3 (inherited)");
    ok("layout", "set", "/lay", "--stripe-unit", "256KiB", "--replication", "2");
    assertThat(ok("layout", "set", "/lay", "--stripe-width", "2").outLines())
        .containsExactly(
            "path:          /lay (directory)",
            "stripe-unit:   256KiB (set here)",
            "stripe-width:  2 (set here)",
            "chunk-size:    64MiB (inherited)",
            "replication:   2 (set here)");

    Path f = tmp.resolve("lay.bin");
    Files.write(f, random(1 << 20, 4));
    ok("put", f.toString(), "/lay/f");
    assertThat(ok("layout", "get", "/lay/f").outLines())
        .containsExactly(
            "path:          /lay/f (file)",
            "stripe-unit:   256KiB",
            "stripe-width:  2",
            "chunk-size:    64MiB",
            "replication:   2");
    assertThat(ok("cat", "/lay/f").bytes()).isEqualTo(Files.readAllBytes(f));

    assertThat(ok("layout", "set", "/lay", "--clear").outLines())
        .contains("stripe-unit:   1MiB (inherited)", "replication:   3 (inherited)");
  }

  @Test
  void chmodChownAndChgrpChangeOneTreeAndLeaveSymlinksBelowAlone() throws IOException {
    ok("mkdir", "-p", "/perm/sub/deeper");
    Path f = tmp.resolve("perm-file");
    Files.writeString(f, "x");
    ok("put", f.toString(), "/perm/sub/file");
    ok("put", f.toString(), "/perm/outside");
    try (BraidClient c = client()) {
      c.symlink("/perm/outside", "/perm/sub/link", false);

      ok("chmod", "-R", "go-rx", "/perm/sub");
      assertThat(Integer.toOctalString(c.stat("/perm/sub").mode())).isEqualTo("700");
      assertThat(Integer.toOctalString(c.stat("/perm/sub/deeper").mode())).isEqualTo("700");
      assertThat(Integer.toOctalString(c.stat("/perm/sub/file").mode())).isEqualTo("600");
      // The link's target is outside the tree: -R does not follow it.
      assertThat(Integer.toOctalString(c.stat("/perm/outside").mode())).isEqualTo("644");
      ok("chmod", "1777", "/perm");
      assertThat(Integer.toOctalString(c.stat("/perm").mode())).isEqualTo("1777");
      assertThat(Integer.toOctalString(c.stat("/perm/sub").mode())).isEqualTo("700");

      ok("chown", "-R", "alice:staff", "/perm/sub");
      for (String p : List.of("/perm/sub", "/perm/sub/deeper", "/perm/sub/file")) {
        assertThat(c.stat(p).user()).as(p).isEqualTo("alice");
        assertThat(c.stat(p).group()).as(p).isEqualTo("staff");
      }
      assertThat(c.stat("/perm/outside").user()).isEqualTo(System.getProperty("user.name"));
      ok("chgrp", "wheel", "/perm/sub/file");
      ok("chown", ":ops", "/perm/sub/deeper");
      assertThat(c.stat("/perm/sub/file").group()).isEqualTo("wheel");
      assertThat(c.stat("/perm/sub/deeper").user()).isEqualTo("alice");
      assertThat(c.stat("/perm/sub/deeper").group()).isEqualTo("ops");
      ok("chgrp", "--recursive", "staff", "/perm/sub");
      for (String p : List.of("/perm/sub", "/perm/sub/deeper", "/perm/sub/file")) {
        assertThat(c.stat(p).group()).as(p).isEqualTo("staff");
      }
    }
    for (String command : List.of("chmod", "chown", "chgrp")) {
      assertThat(ok(command, "--help").out())
          .as(command)
          .contains("-R, --recursive", "Also everything under each directory");
    }

    Run bad = fs("chmod", "u+q", "/perm");
    assertThat(bad.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(bad.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs chmod: mode 'u+q': 'q' in 'u+q' is not one of r, w, x, X, s, t");
    Run missing = fs("chmod", "-R", "755", "/perm/none", "/perm/sub");
    assertThat(missing.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(missing.errLines())
        .containsExactly("braid fs chmod: /perm/none: no such file or directory (NOT_FOUND)");

    // Not the owner, not a superuser: the MDS's reason, naming the user, is shown.
    Run denied = fs("--user", "bob", "chmod", "777", "/perm/sub");
    assertThat(denied.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(denied.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs chmod: /perm/sub: permission denied (PERMISSION_DENIED: ")
        .contains("user bob");
  }

  @Test
  void touchTestCountSetrepAndHead() throws IOException {
    ok("mkdir", "-p", "/more/sub");
    ok("touch", "/more/empty", "/more/sub/also-empty");
    // As touch(1): no parent directories made.
    Run typo = fs("touch", "/more/typo/file");
    assertThat(typo.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(typo.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs touch: /more/typo/file: ");
    assertThat(fs("test", "-e", "/more/typo").code()).isEqualTo(Braid.EXIT_FAILURE);
    Path f = tmp.resolve("text");
    Files.writeString(f, "0123456789".repeat(300)); // 3,000 bytes
    ok("put", f.toString(), "/more/sub/text");

    // test answers with its exit code alone.
    assertThat(ok("test", "-e", "/more/empty").out()).isEmpty();
    assertThat(fs("test", "-d", "/more/empty").code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(fs("test", "-d", "/more/empty").err()).isEmpty();
    ok("test", "-d", "/more/sub");
    ok("test", "-f", "/more/sub/text");
    ok("test", "-z", "/more/empty");
    ok("test", "-s", "/more/sub/text");
    assertThat(fs("test", "-s", "/more/empty").code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(fs("test", "-e", "/more/none").code()).isEqualTo(Braid.EXIT_FAILURE);
    Run underAFile = fs("test", "-e", "/more/empty/x"); // a silent no, as test(1)
    assertThat(underAFile.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(underAFile.err()).isEmpty();
    assertThat(fs("test", "/more").code()).isEqualTo(Braid.EXIT_USAGE);

    // touch on an existing file moves its modification time on, and keeps its bytes.
    long before = attributes("/more/sub/text").mtimeNanos();
    ok("touch", "/more/sub/text");
    assertThat(attributes("/more/sub/text").mtimeNanos()).isGreaterThan(before);
    assertThat(ok("cat", "/more/sub/text").bytes()).hasSize(3000);

    // count: directories (its own too), files, bytes, path; as hdfs dfs -count.
    assertThat(ok("count", "/more", "/more/sub").outLines())
        .containsExactly("2  3  3000  /more", "1  2  3000  /more/sub");

    // setrep on a directory changes every file under it.
    ok("setrep", "1", "/more");
    for (String p : List.of("/more/empty", "/more/sub/also-empty", "/more/sub/text")) {
      assertThat(attributes(p).layout().replication()).as(p).isEqualTo(1);
    }

    assertThat(new String(ok("head", "/more/sub/text").bytes(), StandardCharsets.UTF_8))
        .hasSize(1024)
        .startsWith("0123456789");
    assertThat(ok("head", "-c", "5", "/more/sub/text").bytes()).hasSize(5);
  }

  @Test
  void lsRecursiveAndHumanDuHumanDfAndRmForce() throws IOException {
    ok("mkdir", "-p", "/tree/a/b");
    Path f = tmp.resolve("kib3");
    Files.write(f, new byte[3000]);
    ok("put", f.toString(), "/tree/a/b/f");
    ok("touch", "/tree/top");

    ok("mkdir", "/tree/c");
    List<String> all = ok("ls", "-R", "-h", "/tree").outLines();
    // Each entry, then what is under it, in name order, as hdfs dfs -ls -R.
    assertThat(all.stream().map(l -> l.substring(l.lastIndexOf("  ") + 2)).toList())
        .containsExactly("/tree/a", "/tree/a/b", "/tree/a/b/f", "/tree/c", "/tree/top");
    assertThat(all.get(2)).matches("-rw-r--r--  .*  2\\.9K  .*  /tree/a/b/f");
    // A directory that cannot be listed is one error line; the rest is still listed.
    ok("chmod", "700", "/tree/a/b");
    Run partly = fs("--user", "bob", "ls", "-R", "/tree");
    assertThat(partly.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(partly.outLines()).hasSize(4).noneMatch(l -> l.endsWith("/tree/a/b/f"));
    assertThat(partly.errLines())
        .first()
        .asString()
        .startsWith("braid fs ls: /tree/a/b: permission denied");
    ok("chmod", "755", "/tree/a/b");
    assertThat(ok("ls", "--help").out()).contains("--human-readable", "--recursive");

    assertThat(ok("du", "-s", "-h", "/tree").outLines())
        .singleElement()
        .asString()
        .matches("2\\.9K  \\S+  /tree");

    List<String> df = ok("df", "-h").outLines();
    assertThat(df).hasSize(2);
    assertThat(df.get(0)).matches("Filesystem\\s+Size\\s+Used\\s+Available\\s+Use%");
    assertThat(df.get(1)).startsWith("braid://" + mds).endsWith("%");

    // rm -f: a missing path is no error, an existing one goes, and so does a dangling symlink.
    try (BraidClient c = client()) {
      c.symlink("/tree/nowhere", "/tree/dangling", false);
    }
    ok("rm", "-f", "/tree/none", "/tree/top", "/tree/dangling");
    assertThat(fs("test", "-e", "/tree/top").code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(ok("ls", "/tree").outLines()).noneMatch(l -> l.contains("dangling"));
    assertThat(fs("rm", "/tree/none").code()).isEqualTo(Braid.EXIT_FAILURE);
  }

  @Test
  void checksumIsTheBytesCrc32cAndTailFollowsAppends() throws Exception {
    byte[] data = random(200_000, 9);
    Path f = tmp.resolve("ct");
    Files.write(f, data);
    ok("put", f.toString(), "/ct");
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(data);
    assertThat(ok("checksum", "/ct").outLines())
        .containsExactly(String.format("/ct\tCOMPOSITE-CRC32C\t%08x", (int) crc.getValue()));
    assertThat(ok("tail", "/ct").bytes())
        .isEqualTo(java.util.Arrays.copyOfRange(data, data.length - 1024, data.length));

    // tail -f: the last KiB, then each append, until Ctrl-C.
    StopSignal stop = new StopSignal();
    ByteArrayOutputStream out = new ByteArrayOutputStream(); // its methods are synchronized
    StringWriter err = new StringWriter();
    Thread tail =
        new Thread(
            () ->
                stop.finished(
                    Braid.commandLine(
                            stop,
                            new ByteArrayInputStream(new byte[0]),
                            out,
                            new PrintWriter(new StringWriter(), true),
                            new PrintWriter(err, true))
                        .execute("fs", "--mds", mds, "tail", "-f", "/ct")),
            "test-tail-f");
    tail.start();
    Await.until("tail -f wrote the last KiB", Duration.ofSeconds(20), () -> out.size() == 1024);
    byte[] more = "appended while followed\n".getBytes(StandardCharsets.UTF_8);
    try (BraidClient c = client();
        io.braidfs.client.BraidOutputStream a = c.append("/ct")) {
      a.write(more);
    }
    Await.until(
        "tail -f wrote the append", Duration.ofSeconds(20), () -> out.size() == 1024 + more.length);
    stop.request();
    tail.join(20_000);
    assertThat(tail.isAlive()).isFalse();
    assertThat(stop.exitCode()).as(err.toString()).isZero();
    byte[] got = out.toByteArray();
    assertThat(java.util.Arrays.copyOfRange(got, 1024, got.length)).isEqualTo(more);
  }

  /**
   * A client of the cluster as this user, without an attribute cache: each stat sees what the
   * commands just changed.
   */
  private static BraidClient client() throws IOException {
    return BraidClient.builder(
            BraidConfig.fromMap(
                Map.of("braid.client.mds", mds, "braid.client.cache.attr-ttl", "0s")))
        .user(System.getProperty("user.name"))
        .build();
  }

  /** Fresh attributes from the MDS, for what the commands do not show. */
  private static io.braidfs.client.FileAttributes attributes(String path) throws IOException {
    try (BraidClient c = client()) {
      return c.stat(path);
    }
  }

  @Test
  void aServersRefusalIsShownInItsOwnWords() throws IOException {
    ok("mkdir", "/five");
    ok("layout", "set", "/five", "--replication", "5");
    Path f = tmp.resolve("five-copies");
    Files.writeString(f, "x");
    Run r = fs("put", f.toString(), "/five/f");
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs put: /five/f: ")
        .contains("replication 5 needs 5 live data servers")
        .endsWith("(UNAVAILABLE)")
        .doesNotContain("no MDS");
  }

  @Test
  void aBadSizeIsAUsageErrorAndABadLayoutAFailure() {
    ok("mkdir", "/badlay");
    Run unit = fs("layout", "set", "/badlay", "--stripe-unit", "1MB");
    assertThat(unit.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(unit.errLines())
        .singleElement()
        .asString()
        .startsWith(
            "braid fs layout set: Invalid value for option '--stripe-unit': invalid data size '1MB'");

    Run nothing = fs("layout", "set", "/badlay");
    assertThat(nothing.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(nothing.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs layout set: name at least one of");

    Run server = fs("layout", "set", "/badlay", "--stripe-unit", "100");
    assertThat(server.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(server.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs layout set: /badlay: invalid argument (INVALID_ARGUMENT: ")
        .contains("stripeUnit");
  }

  @Test
  void aMissingPathFailsWithOneLineNamingIt() {
    for (String sub : List.of("cat", "stat", "ls", "du")) {
      Run r = fs(sub, "/no/such/file");
      assertThat(r.code()).as(sub).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(r.errLines())
          .as(sub)
          .containsExactly(
              "braid fs " + sub + ": /no/such/file: no such file or directory (NOT_FOUND)");
      assertThat(r.out()).as(sub).isEmpty();
    }
    Run get = fs("get", "/no/such/file", tmp.resolve("never").toString());
    assertThat(get.errLines())
        .containsExactly("braid fs get: /no/such/file: no such file or directory (NOT_FOUND)");
    assertThat(tmp.resolve("never")).doesNotExist();

    Path missing = tmp.resolve("missing.bin");
    Run put = fs("put", missing.toString(), "/x");
    assertThat(put.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(put.errLines())
        .containsExactly("braid fs put: " + missing + ": no such file or directory");
  }

  @Test
  void aStopRequestInterruptsACopyAndLeavesNothingBehind() throws IOException {
    Path f = tmp.resolve("stop.bin");
    Files.write(f, random(3 << 20, 5));
    StopSignal stop = new StopSignal();
    stop.request();
    StringWriter err = new StringWriter();
    int code =
        Braid.commandLine(
                stop,
                new ByteArrayInputStream(new byte[0]),
                new ByteArrayOutputStream(),
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true))
            .execute("fs", "--mds", mds, "put", f.toString(), "/stopped");
    assertThat(code).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(err.toString().lines()).containsExactly("braid fs put: /stopped: interrupted");
    assertThat(ok("ls", "/").out()).doesNotContain("stopped");
  }

  @Test
  void noMdsIsOneLineAndExitCodeOne() {
    BraidCommandTest.Run r =
        BraidCommandTest.run(
            "fs", "-D", "braid.client.mds.failover-timeout=200ms", "--mds", "127.0.0.1:1", "ls");
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .isEqualTo(
            "braid fs ls: MDS 127.0.0.1:1: connection refused by every MDS address"
                + " [/127.0.0.1:1]: no MDS listens there (UNAVAILABLE)");
  }

  @Test
  void usageErrorsExitWithTwo() {
    Run none = fs();
    assertThat(none.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(none.errLines())
        .containsExactly("braid fs: missing a subcommand (see braid fs --help)");

    Run key = fs("-D", "braid.client.nope=1", "ls");
    assertThat(key.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(key.errLines())
        .singleElement()
        .asString()
        .startsWith("braid fs: unknown configuration key 'braid.client.nope'");

    BraidCommandTest.Run badMds = BraidCommandTest.run("fs", "ls", "--mds", "nowhere");
    assertThat(badMds.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(badMds.errLines())
        .containsExactly(
            "braid fs: --mds: invalid address 'nowhere': expected HOST:PORT with a port from 0 to"
                + " 65535");

    BraidCommandTest.Run help = BraidCommandTest.run("fs", "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out())
        .contains("ls", "mkdir", "put", "get", "cat", "rm", "mv", "stat", "du", "layout");
  }
}
