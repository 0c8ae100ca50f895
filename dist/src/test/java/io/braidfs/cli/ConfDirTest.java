package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The configuration directory ({@code BRAID_CONF_DIR}): every command reads its {@code
 * braid.properties}, then the file of its own role ({@code mds.properties}, {@code fs.properties})
 * and no other, below {@code BRAID_LOG_DIR}, {@code --conf}, {@code -D} and the command's options;
 * its problems are usage errors naming the file. Without it nothing more is read than before.
 */
class ConfDirTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path tmp;

  private Path conf;

  @BeforeEach
  void confDir() throws IOException {
    conf = Files.createDirectory(tmp.resolve("conf"));
    Files.writeString(
        conf.resolve("braid.properties"),
        "braid.mds.address=10.0.0.1:1\n"
            + "braid.mds.id=shared\n"
            + "braid.mds.read-threads=2\n"
            + "braid.mds.retry-cache-ttl=5m\n"
            + "braid.log.dir=/shared/logs\n");
    Files.writeString(
        conf.resolve("mds.properties"),
        "braid.mds.id=role\nbraid.mds.read-threads=3\nbraid.log.dir=/role/logs\n");
    // Another role's file is not read: this one would stop any command that read it.
    Files.writeString(conf.resolve("dataserver.properties"), "braid.nothing=1\n");
  }

  @Test
  void theRoleFileOverridesTheSharedOneAndEverythingElseOverridesBoth() throws IOException {
    Map<String, String> env = new LinkedHashMap<>(Map.of("BRAID_CONF_DIR", conf.toString()));
    BraidConfig files = configuration(env);
    assertThat(files.get(MdsConfigKeys.ADDRESS)).isEqualTo("10.0.0.1:1");
    assertThat(files.get(MdsConfigKeys.RETRY_CACHE_TTL)).isEqualTo(Duration.ofMinutes(5));
    assertThat(files.get(MdsConfigKeys.ID)).isEqualTo("role");
    assertThat(files.get(MdsConfigKeys.READ_THREADS)).isEqualTo(3);
    assertThat(files.get(LogConfigKeys.DIR)).isEqualTo("/role/logs");

    env.put("BRAID_LOG_DIR", "/env/logs");
    assertThat(configuration(env).get(LogConfigKeys.DIR)).isEqualTo("/env/logs");

    Path file = Files.writeString(tmp.resolve("more.properties"), "braid.log.dir=/conf/logs\n");
    BraidConfig commandLine =
        configuration(
            env,
            "--conf",
            file.toString(),
            "-D",
            "braid.mds.read-threads=4",
            "-D",
            "braid.mds.id=define",
            "--id",
            "9");
    assertThat(commandLine.get(LogConfigKeys.DIR)).isEqualTo("/conf/logs");
    assertThat(commandLine.get(MdsConfigKeys.READ_THREADS)).isEqualTo(4);
    assertThat(commandLine.get(MdsConfigKeys.ID)).isEqualTo("mds-9");
    assertThat(commandLine.get(MdsConfigKeys.ADDRESS)).isEqualTo("10.0.0.1:1");
  }

  @Test
  void withoutTheDirectoryOnlyTheDefaultsApply() {
    BraidConfig none = configuration(Map.of());
    assertThat(none.get(MdsConfigKeys.ID)).isEqualTo(MdsConfigKeys.ID.defaultValue());
    assertThat(none.get(LogConfigKeys.DIR)).isEmpty();
  }

  @Test
  void fileToolsReadTheirRoleFileToo() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    Files.writeString(conf.resolve("fs.properties"), "braid.client.mds=127.0.0.1:" + closed + "\n");
    Run r = run(Map.of("BRAID_CONF_DIR", conf.toString()), "fs", "ls", "/");
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.err()).startsWith("braid fs ls: MDS 127.0.0.1:" + closed + ": connection refused");
  }

  @Test
  void problemsInTheDirectoryNameTheFile() throws IOException {
    Path roleFile = conf.resolve("mds.properties");
    Files.writeString(roleFile, "braid.mds.stor.dir=/x\n");
    Run r = run(Map.of("BRAID_CONF_DIR", conf.toString()), "mds");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "braid mds: unknown configuration key 'braid.mds.stor.dir' in "
                + roleFile
                + "; did you mean 'braid.mds.store.dir'?");

    Run notADir = run(Map.of("BRAID_CONF_DIR", roleFile.toString()), "mds");
    assertThat(notADir.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(notADir.errLines())
        .containsExactly("braid mds: BRAID_CONF_DIR is " + roleFile + ", which is not a directory");
  }

  /**
   * A real {@code braid mds} process: the store directory of its role file wins over the shared
   * file's, the address of the shared file is used, and {@code --id} overrides the role file's id,
   * which the log file in the role file's {@code braid.log.dir} is named after.
   */
  @Test
  void aServerProcessHonoursItsRoleFileAndTheCommandLineOverridesIt() throws Exception {
    Path sharedStore = tmp.resolve("shared-store");
    Path roleStore = tmp.resolve("role-store");
    Path logs = tmp.resolve("logs");
    Files.writeString(
        conf.resolve("braid.properties"),
        "braid.mds.address=127.0.0.1:0\nbraid.mds.store.dir=" + sharedStore + "\n");
    Files.writeString(
        conf.resolve("mds.properties"),
        "braid.mds.store.dir="
            + roleStore
            + "\nbraid.mds.id=from-file\nbraid.log.dir="
            + logs
            + "\n");
    try (BraidProcess mds =
        BraidProcess.start(
            tmp.resolve("mds.stderr"),
            Map.of("BRAID_CONF_DIR", conf.toString()),
            "mds",
            "--id",
            "5")) {
      Matcher listening = mds.awaitLine(BraidProcess.MDS_LISTENING, TIMEOUT);
      assertThat(listening.group(1)).isEqualTo("127.0.0.1");
      assertThat(listening.group(3)).isEqualTo(roleStore.toString());
      Path log = logs.resolve("braid-mds-5.log");
      Await.until(
          "mds-5's serving line in " + log,
          TIMEOUT,
          () -> Files.exists(log) && readQuietly(log).contains("mds-5: serving on"));
      assertThat(mds.terminate(TIMEOUT)).isEqualTo(Braid.EXIT_OK);
    }
    assertThat(sharedStore).doesNotExist();
    try (var files = Files.list(logs)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("braid-mds-5.log", "braid-mds-5-audit.log");
    }
  }

  private record Run(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  private static Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Braid.commandLine(
                new StopSignal(), env, new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  /** The configuration {@code braid mds args...} would start with, given {@code env}. */
  private static BraidConfig configuration(Map<String, String> env, String... args) {
    CommandLine cmd =
        Braid.commandLine(
            new StopSignal(),
            env,
            new PrintWriter(new StringWriter()),
            new PrintWriter(new StringWriter()));
    String[] all = new String[args.length + 1];
    all[0] = "mds";
    System.arraycopy(args, 0, all, 1, args.length);
    CommandLine.ParseResult parsed = cmd.parseArgs(all);
    MdsCommand mds = parsed.subcommand().commandSpec().commandLine().getCommand();
    return mds.configuration();
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }
}
