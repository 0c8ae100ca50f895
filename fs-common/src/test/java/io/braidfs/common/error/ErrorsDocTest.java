package io.braidfs.common.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/errors.md} in step with {@link Status} and {@link StatusExceptions}: one row
 * per status, in wire-code order, with the right code, retriable flag, Java exception and errno.
 */
class ErrorsDocTest {
  private static List<String> lines;
  private static Path doc;

  @BeforeAll
  static void readDoc() throws IOException {
    doc = repositoryRoot().resolve("docs/errors.md");
    lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
  }

  @Test
  void everyStatusHasOneRowInWireCodeOrder() {
    List<String> names = new ArrayList<>();
    for (String line : lines) {
      String[] cells = cells(line);
      if (cells.length > 0 && cells[0].matches("`[A-Z_]+`")) {
        names.add(cells[0].substring(1, cells[0].length() - 1));
      }
    }
    List<String> expected = new ArrayList<>();
    for (Status s : Status.values()) {
      expected.add(s.name());
    }
    expected.sort((a, b) -> Integer.compare(Status.valueOf(a).code(), Status.valueOf(b).code()));
    assertThat(names).as("status rows of %s", doc).isEqualTo(expected);
  }

  @Test
  void everyRowStatesTheWireCodeRetriableFlagExceptionAndErrno() throws Exception {
    Map<Integer, String> errnoNames = errnoNames();
    for (Status s : Status.values()) {
      String[] row = row(s);
      assertThat(row).as("row of %s in %s", s, doc).hasSize(6);
      assertThat(row[1]).as("wire code of %s", s).isEqualTo(Integer.toString(s.code()));
      assertThat(row[2]).as("retriable of %s", s).isEqualTo(s.isRetriable() ? "yes" : "no");
      if (s.isOk()) {
        assertThat(row[5]).as("errno of OK").isEqualTo("0");
      } else {
        String exception = StatusExceptions.toIOException(s, "x").getClass().getSimpleName();
        assertThat(row[3]).as("Java exception of %s", s).contains("`" + exception + "`");
        String errno = errnoNames.get(s.errno());
        assertThat(errno).as("errno %d of %s has a name in Status.Errno", s.errno(), s).isNotNull();
        assertThat(row[5]).as("errno of %s", s).isEqualTo("`" + errno + "` (" + s.errno() + ")");
      }
    }
  }

  private static String[] row(Status s) {
    for (String line : lines) {
      String[] cells = cells(line);
      if (cells.length > 0 && cells[0].equals("`" + s.name() + "`")) {
        return cells;
      }
    }
    throw new AssertionError("no row for " + s + " in " + doc);
  }

  /** The trimmed cells of a Markdown table row, or none if the line is not a row. */
  private static String[] cells(String line) {
    String t = line.strip();
    if (!t.startsWith("|") || !t.endsWith("|")) {
      return new String[0];
    }
    String[] parts = t.substring(1, t.length() - 1).split("\\|", -1);
    for (int i = 0; i < parts.length; i++) {
      parts[i] = parts[i].strip();
    }
    return parts;
  }

  /** Errno number to name, from the constants in {@code Status.Errno}. */
  private static Map<Integer, String> errnoNames() throws IllegalAccessException {
    Map<Integer, String> names = new HashMap<>();
    for (Field f : Status.Errno.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
        names.put(f.getInt(null), f.getName());
      }
    }
    return names;
  }

  /**
   * The repository root: the nearest directory, from the working directory up, whose pom.xml is the
   * {@code braid-parent} project itself (not a module that names it as its parent).
   */
  static Path repositoryRoot() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom)) {
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String withoutParent = text.replaceAll("(?s)<parent>.*?</parent>", "");
        if (withoutParent.contains("<artifactId>braid-parent</artifactId>")) {
          return dir;
        }
      }
    }
    throw new IllegalStateException(
        "no braid-parent pom.xml above " + Path.of("").toAbsolutePath());
  }
}
