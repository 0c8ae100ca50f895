package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FsxTest {
  @TempDir Path dir;

  @Test
  void aPassedRunHasItsRate() {
    Fsx.Outcome o =
        Fsx.outcome(1, 20_000, 10_000_000_000L, 0, null, List.of("All operations completed A-OK!"));

    assertThat(o.passed()).isTrue();
    assertThat(o.opsPerSecond()).isEqualTo(2_000.0);
  }

  @Test
  void aFailureNamesTheLastOperationOfTheLogDumpAndWhatFsxSaid() {
    List<String> lines = new ArrayList<>();
    lines.add("[INFO  fsx]  756 write    0x29f9c4 .. 0x2adc23 (0xe25f bytes)");
    lines.add("[INFO  fsx]  757 mapwrite 0x2a13c6 .. 0x2b0287 (0xeec1 bytes)");
    lines.add("[ERROR fsx] Mapped non-zero data past EoF (0x2b0286) page offset 0x287 is 0xc2");
    lines.add("[ERROR fsx] Using seed 2");
    lines.add("[ERROR fsx] LOG DUMP");
    lines.add("[ERROR fsx]    1 TRUNCATE  UP   from      0x0 to 0x27fc42");
    lines.add("[ERROR fsx]  756 WRITE    0x29f9c4 => 0x2adc23 ( 0xe25f bytes) HOLE");
    lines.add("[ERROR fsx]  757 MAPWRITE 0x2a13c6 => 0x2b0287 ( 0xeec1 bytes) EXTEND");

    Fsx.Outcome o = Fsx.outcome(2, 3_000, 1L, 1, null, lines);

    assertThat(o.passed()).isFalse();
    assertThat(o.failure())
        .isEqualTo(
            "exit 1; first failing operation 757 (MAPWRITE 0x2a13c6 => 0x2b0287 ( 0xeec1 bytes)"
                + " EXTEND): Mapped non-zero data past EoF (0x2b0286) page offset 0x287 is 0xc2");
    assertThat(o.tail()).hasSize(8).endsWith(lines.get(7));
    assertThat(o.ops()).as("operations before the failing one").isEqualTo(756);
  }

  @Test
  void aPanicNamesTheLastOperationLoggedAndWhy() {
    List<String> lines =
        List.of(
            "[INFO  fsx] 1234 mapwrite 0x1eea78 .. 0x20414c (0x156d5 bytes)",
            "",
            "thread 'main' (10546) panicked at src/main.rs:1031:54:",
            "called `Result::unwrap()` on an `Err` value: Os { code: 5, kind: Uncategorized }",
            "stack backtrace:");

    Fsx.Outcome o = Fsx.outcome(3, 3_000, 1L, 101, null, lines);

    assertThat(o.passed()).isFalse();
    assertThat(o.failure())
        .isEqualTo(
            "exit 101; first failing operation 1234 (mapwrite 0x1eea78 .. 0x20414c (0x156d5"
                + " bytes)): thread 'main' (10546) panicked at src/main.rs:1031:54:"
                + " called `Result::unwrap()` on an `Err` value: Os { code: 5, kind: Uncategorized"
                + " }");
  }

  @Test
  void aSignalIsNamed() {
    Fsx.Outcome o =
        Fsx.outcome(
            5, 3_000, 1L, 135, null, List.of("[INFO  fsx] 4398 mapread   0x2ae33 ..  0x3bcdd"));

    assertThat(o.failure())
        .isEqualTo(
            "exit 135 (SIGBUS: a mapped page could not be read or written); first failing"
                + " operation 4398 (mapread 0x2ae33 .. 0x3bcdd)");
    assertThat(Fsx.signal(0)).isEmpty();
    assertThat(Fsx.signal(101)).isEmpty();
  }

  @Test
  void aKilledRunFailsEvenWithoutOutput() {
    Fsx.Outcome o = Fsx.outcome(4, 3_000, 1L, -1, "killed after 70 min", List.of());

    assertThat(o.passed()).isFalse();
    assertThat(o.failure()).startsWith("killed after 70 min; first failing operation unknown");
  }

  @Test
  void findsFsxInTheOutsideToolsThenTheCacheThenThePath() throws IOException {
    Path tools = executable(dir.resolve("tools"));
    Path home = executable(dir.resolve("home/.cache/braid/outside-tools/bin"));
    Path path = executable(dir.resolve("bin"));
    String pathVar = path.getParent() + ":/usr/bin";

    assertThat(
            Fsx.find(
                null,
                Map.of(
                    "BRAID_OUTSIDE_TOOLS", tools.getParent().toString(),
                    "HOME", dir.resolve("home").toString(),
                    "PATH", pathVar)))
        .isEqualTo(tools);
    assertThat(Fsx.find(null, Map.of("HOME", dir.resolve("home").toString(), "PATH", pathVar)))
        .isEqualTo(home);
    assertThat(Fsx.find(null, Map.of("HOME", dir.resolve("none").toString(), "PATH", pathVar)))
        .isEqualTo(path);
    assertThat(Fsx.find(path, Map.of())).isEqualTo(path);
    assertThatThrownBy(
            () -> Fsx.find(null, Map.of("HOME", dir.resolve("none").toString(), "PATH", "/none")))
        .hasMessageContaining("cargo install --locked --root ~/.cache/braid/outside-tools fsx");
  }

  @Test
  void theConfigurationIsFsFusesFile() throws IOException {
    Path fsFuses = Path.of("..", "fs-fuse", "src", "test", "resources", "outside", "fsx.toml");

    assertThat(Fsx.configText()).isEqualTo(Files.readString(fsFuses));
    assertThat(Files.readString(Fsx.writeConfig(dir))).isEqualTo(Files.readString(fsFuses));
  }

  private static Path executable(Path binDir) throws IOException {
    Files.createDirectories(binDir);
    Path p = binDir.resolve("fsx");
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }
}
