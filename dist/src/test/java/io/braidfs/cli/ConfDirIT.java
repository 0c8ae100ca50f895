package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.braidfs.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/braid}'s configuration directory, through the checkout's {@code ./braid} running the
 * packaged tarball (so it runs in failsafe, after {@code package}; {@code BRAID_NO_BUILD=1} as in
 * {@link LocalProcessIT}). A {@code logback.xml} in {@code BRAID_CONF_DIR} replaces the shipped one
 * and is given the log file's name; the role's file and {@code BRAID_LOG_DIR} are read, and {@code
 * --id} overrides the file. Without {@code BRAID_CONF_DIR}, the launcher names the installation's
 * {@code conf/}, beside which {@code systemd/} holds the units.
 */
@Timeout(180)
class ConfDirIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** Logs to braid.log.file with a mark of its own, or to stderr before the file is named. */
  private static final String LOGBACK =
      """
      <configuration>
        <condition class="ch.qos.logback.core.boolex.IsPropertyDefinedCondition">
          <key>braid.log.file</key>
        </condition>
        <if>
          <then>
            <appender name="FILE" class="ch.qos.logback.core.FileAppender">
              <file>${braid.log.file}</file>
              <encoder><pattern>CUSTOM %level %msg%n</pattern></encoder>
            </appender>
            <root level="INFO"><appender-ref ref="FILE"/></root>
          </then>
          <else>
            <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
              <target>System.err</target>
              <encoder><pattern>CUSTOM-STDERR %level %msg%n</pattern></encoder>
            </appender>
            <root level="INFO"><appender-ref ref="STDERR"/></root>
          </else>
        </if>
      </configuration>
      """;

  @TempDir Path tmp;

  private @Nullable BraidProcess running;

  /**
   * Skips each test in failsafe's spark-it execution (with {@code -Dit.test=ConfDirIT}), whose
   * classpath has none of Braid's test helpers (dist's pom.xml).
   */
  @BeforeEach
  void notOnSparksClasspath() {
    assumeThat(Boolean.getBoolean("braid.it.spark"))
        .as("ConfDirIT runs in failsafe's default execution, not on Spark's classpath")
        .isFalse();
  }

  @AfterEach
  void killLeftover() {
    if (running != null) {
      running.close();
    }
  }

  @Test
  void theDirectorysFilesAndLoggingConfigurationAreUsed() throws Exception {
    Path conf = Files.createDirectory(tmp.resolve("conf"));
    Path store = tmp.resolve("store");
    Path logs = tmp.resolve("logs");
    Files.writeString(
        conf.resolve("braid.properties"),
        "braid.mds.address=127.0.0.1:0\nbraid.mds.store.dir=" + store + "\n");
    Files.writeString(conf.resolve("mds.properties"), "braid.mds.id=from-file\n");
    Files.writeString(conf.resolve("logback.xml"), LOGBACK);
    BraidProcess mds =
        start(
            "custom",
            Map.of("BRAID_CONF_DIR", conf.toString(), "BRAID_LOG_DIR", logs.toString()),
            "mds",
            "--id",
            "3");
    assertThat(mds.awaitLine(BraidProcess.MDS_LISTENING, TIMEOUT).group(3))
        .isEqualTo(store.toString());
    assertThat(arguments(mds))
        .contains("-Dlogback.configurationFile=" + conf.resolve("logback.xml"));
    Path log = logs.resolve("braid-mds-3.log");
    Await.until(
        "mds-3's serving line in " + log,
        TIMEOUT,
        () -> Files.exists(log) && read(log).contains("CUSTOM INFO mds-3: serving on"));
    assertThat(mds.terminate(TIMEOUT)).as(mds.diagnostics()).isZero();
    running = null;
    assertThat(read(log).lines()).allSatisfy(l -> assertThat(l).startsWith("CUSTOM "));
    try (Stream<Path> files = Files.list(logs)) {
      // This configuration has no audit file, though it was named.
      assertThat(files.map(f -> f.getFileName().toString())).containsExactly("braid-mds-3.log");
    }
  }

  @Test
  void withoutItTheInstallationsConfIsTheDirectory() throws Exception {
    BraidProcess mds =
        start(
            "default",
            Map.of(),
            "mds",
            "--address",
            "127.0.0.1:0",
            "--dir",
            tmp.resolve("store").toString());
    mds.awaitMdsListening(TIMEOUT);
    assertThat(arguments(mds))
        .isNotEmpty()
        .noneMatch(a -> a.startsWith("-Dlogback.configurationFile"));
    // Read from the JVM itself: the wrapper and bin/braid exec it.
    String environ =
        new String(
            Files.readAllBytes(Path.of("/proc", Long.toString(mds.pid()), "environ")),
            StandardCharsets.UTF_8);
    String confDir =
        Arrays.stream(environ.split("\0"))
            .filter(e -> e.startsWith("BRAID_CONF_DIR="))
            .map(e -> e.substring("BRAID_CONF_DIR=".length()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no BRAID_CONF_DIR in " + environ));
    assertThat(mds.terminate(TIMEOUT)).as(mds.diagnostics()).isZero();
    running = null;

    Path install = Path.of(confDir).getParent();
    assertThat(Path.of(confDir).getFileName()).hasToString("conf");
    assertThat(install.resolve("bin/braid")).isExecutable();
    assertThat(Path.of(confDir, "braid.properties")).isRegularFile();
    Path units = ConfigurationDocTest.repositoryRoot().resolve("dist/src/dist/systemd");
    for (String name : List.of("braid-mds.service", "braid-dataserver.service", "braid.env")) {
      assertThat(install.resolve("systemd").resolve(name))
          .hasSameTextualContentAs(units.resolve(name));
    }
  }

  /** Starts {@code ./braid args...} from the checkout with {@code env} added to this process's. */
  private BraidProcess start(String name, Map<String, String> env, String... args)
      throws IOException {
    Path root = ConfigurationDocTest.repositoryRoot();
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("JAVA_HOME", System.getProperty("java.home"));
    all.put("BRAID_OPTS", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    all.put("BRAID_NO_BUILD", "1");
    List<String> command = new java.util.ArrayList<>(List.of(root.resolve("braid").toString()));
    command.addAll(List.of(args));
    BraidProcess p = BraidProcess.startCommand(tmp.resolve(name + ".stderr"), root, all, command);
    running = p;
    return p;
  }

  /** The JVM options and arguments of the running process. */
  private static List<String> arguments(BraidProcess p) {
    return Arrays.asList(p.process().info().arguments().orElse(new String[0]));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
