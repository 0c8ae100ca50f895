package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The systemd units of the tarball ({@code dist/src/dist/systemd}, its {@code systemd/}): one per
 * server command, each running it as the user braid with the environment file that names the
 * configuration and log directories, restarting it after a failure but not after a configuration
 * error, with room for many open files and a stop that outlasts braid's own bound. systemd's own
 * checker, {@code systemd-analyze verify}, finds nothing to say about them (skipped where it is
 * missing, failed instead with {@code BRAID_OUTSIDE_TOOLS_REQUIRED=1}, as in CI).
 */
class SystemdUnitsTest {
  /** Every command that runs a server on a host of its own ({@code braid local} is one machine). */
  private static final List<String> ROLES = List.of("mds", "dataserver", "zk", "bookie");

  /** Where the units expect the tarball to be unpacked. */
  private static final String INSTALL = "/opt/braid";

  @TempDir Path tmp;

  @Test
  void everyServerCommandHasAUnitThatRunsItAsItShould() throws IOException {
    Path dir = unitsDir();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".service")))
          .containsExactlyInAnyOrderElementsOf(
              ROLES.stream().map(r -> "braid-" + r + ".service").toList());
    }
    for (String role : ROLES) {
      Map<String, String> service = section(dir.resolve("braid-" + role + ".service"), "Service");
      assertThat(service)
          .as(role)
          .containsEntry("ExecStart", INSTALL + "/bin/braid " + role)
          .containsEntry("User", "braid")
          .containsEntry("EnvironmentFile", "/etc/braid/braid.env")
          .containsEntry("Restart", "on-failure")
          .containsEntry("RestartPreventExitStatus", Integer.toString(Braid.EXIT_USAGE))
          .containsEntry("KillSignal", "SIGTERM")
          .containsEntry("LogsDirectory", "braid");
      assertThat(Integer.parseInt(service.get("LimitNOFILE"))).as(role).isGreaterThan(65535);
      // Braid's shutdown hook gives the server 30 s: systemd must not kill it before.
      assertThat(Integer.parseInt(service.get("TimeoutStopSec"))).as(role).isGreaterThan(30);
    }
    Map<String, String> env = section(dir.resolve("braid.env"), null);
    assertThat(env)
        .containsEntry(ConfigOptions.CONF_DIR_ENV, "/etc/braid")
        .containsEntry(ConfigOptions.LOG_DIR_ENV, "/var/log/braid");
  }

  @Test
  void systemdAnalyzeVerifiesThem() throws IOException, InterruptedException {
    Path tool = onPath("systemd-analyze");
    if (tool == null) {
      String why =
          "systemd-analyze is missing (apt-get install systemd): the units are not verified";
      if ("1".equals(System.getenv("BRAID_OUTSIDE_TOOLS_REQUIRED"))) {
        throw new AssertionError(why + ", and BRAID_OUTSIDE_TOOLS_REQUIRED=1");
      }
      assumeThat(tool).as(why).isNotNull();
      return;
    }
    // verify checks that ExecStart's program exists: point it at the checkout's bin/braid, as an
    // operator who unpacked elsewhere would edit the path.
    Path distDir = ConfigurationDocTest.repositoryRoot().resolve("dist/src/dist");
    assertThat(distDir.resolve("bin/braid")).isExecutable();
    List<String> command = new ArrayList<>(List.of(tool.toString(), "verify"));
    for (String role : ROLES) {
      String name = "braid-" + role + ".service";
      String text = Files.readString(unitsDir().resolve(name), StandardCharsets.UTF_8);
      Path copy = tmp.resolve(name);
      Files.writeString(copy, text.replace(INSTALL + "/", distDir + "/"));
      command.add(copy.toString());
    }
    Path out = tmp.resolve("verify.out");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("systemd-analyze verify:\n%s", said).isZero();
    // It exits 0 after warnings (an unknown key, a value it ignores) too; they name the unit.
    assertThat(said.lines())
        .as("systemd-analyze verify:\n%s", said)
        .noneMatch(l -> l.contains("braid-"));
  }

  private static Path unitsDir() throws IOException {
    return ConfigurationDocTest.repositoryRoot().resolve("dist/src/dist/systemd");
  }

  /**
   * The {@code key=value} lines of one section of a unit file ({@code null}: a file without
   * sections, such as an environment file), comments and blank lines left out.
   */
  private static Map<String, String> section(Path file, @Nullable String name) throws IOException {
    Map<String, String> entries = new LinkedHashMap<>();
    String current = null;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (l.startsWith("[") && l.endsWith("]")) {
        current = l.substring(1, l.length() - 1);
      } else if (java.util.Objects.equals(current, name)) {
        int eq = l.indexOf('=');
        assertThat(eq).as("%s: %s", file, l).isPositive();
        assertThat(entries.put(l.substring(0, eq), l.substring(eq + 1)))
            .as("%s: %s given twice", file, l.substring(0, eq))
            .isNull();
      }
    }
    return entries;
  }

  private static @Nullable Path onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return Path.of(dir, tool);
      }
    }
    return null;
  }
}
