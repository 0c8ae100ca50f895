package io.braidfs.bench.driver;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The generated section of docs/benchmarks.md: everything between {@link #BEGIN} and {@link #END}
 * is replaced by the header and, per fragment ({@code expN-NAME.md}) found in the results directory
 * in experiment order, its compact form: the heading, the command line, a failure line if any, the
 * first table with its caption, and a link to the fragment, which keeps every table, the method and
 * the plots. Text outside the markers is left alone; a document without them gets the section
 * appended.
 */
final class DocsSection {
  static final String BEGIN = "<!-- BEGIN braid bench: generated, do not edit by hand -->";
  static final String END = "<!-- END braid bench -->";

  private static final Pattern FRAGMENT = Pattern.compile("exp(\\d+)-.*\\.md");
  private static final String MACHINE = "Machine: ";

  private DocsSection() {}

  /** Rewrites the section of {@code doc} from the fragments in {@code results}. */
  static void update(Path doc, Path results, String header) throws IOException {
    Path dir =
        requireNonNull(doc.toAbsolutePath().getParent()) // a file's, so never null
            .relativize(results.toAbsolutePath());
    String prefix = dir.toString().isEmpty() ? "" : dir.toString().replace('\\', '/') + "/";
    StringBuilder section = new StringBuilder(BEGIN).append('\n').append(header);
    for (Path f : fragments(results)) {
      section.append('\n');
      String name = requireNonNull(f.getFileName()).toString(); // a directory entry's
      section.append(compact(Files.readString(f, StandardCharsets.UTF_8), prefix + name));
    }
    section.append('\n').append(END);
    String text = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    String updated;
    if (b >= 0 && e > b) {
      updated = text.substring(0, b) + section + text.substring(e + END.length());
    } else {
      updated = text + (text.endsWith("\n") || text.isEmpty() ? "\n" : "\n\n") + section + "\n";
    }
    Files.writeString(doc, updated, StandardCharsets.UTF_8);
  }

  /**
   * The machine named in the section of {@code doc} (without "Machine: " and the final full stop),
   * or null if it has none: regenerating the section keeps the machine the figures were taken on.
   */
  static @Nullable String machine(Path doc) throws IOException {
    if (!Files.exists(doc)) {
      return null;
    }
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    if (b < 0 || e < b) {
      return null;
    }
    for (String line : text.substring(b, e).lines().toList()) {
      if (line.startsWith(MACHINE)) {
        String m = line.substring(MACHINE.length());
        return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
      }
    }
    return null;
  }

  /**
   * A fragment's part of the section: its heading, its command line, its failure line if it has
   * one, its first table with the caption above it, and a line linking {@code link}, the fragment.
   */
  static String compact(String fragment, String link) {
    List<String> lines = fragment.lines().toList();
    StringBuilder s = new StringBuilder();
    String heading = first(lines, "### ");
    if (heading != null) {
      s.append(heading).append("\n\n");
    }
    String command = first(lines, "`./braid bench");
    if (command != null) {
      s.append(command).append("\n\n");
    }
    String failure = first(lines, "**This run failed**");
    if (failure != null) {
      s.append(failure).append("\n\n");
    }
    int t = 0;
    while (t < lines.size() && !lines.get(t).startsWith("|")) {
      t++;
    }
    if (t < lines.size()) {
      int c = t - 1;
      while (c >= 0 && lines.get(c).isBlank()) {
        c--;
      }
      if (c >= 0 && lines.get(c).startsWith("**") && !lines.get(c).equals(failure)) {
        s.append(lines.get(c)).append("\n\n");
      }
      for (int i = t; i < lines.size() && lines.get(i).startsWith("|"); i++) {
        s.append(lines.get(i)).append('\n');
      }
      s.append('\n');
    }
    String file = link.substring(link.lastIndexOf('/') + 1);
    s.append("All tables, the method and the plots: [")
        .append(file)
        .append("](")
        .append(link)
        .append(").\n");
    return s.toString();
  }

  private static @Nullable String first(List<String> lines, String start) {
    for (String line : lines) {
      if (line.startsWith(start)) {
        return line;
      }
    }
    return null;
  }

  private static List<Path> fragments(Path results) throws IOException {
    List<Path> found = new ArrayList<>();
    if (!Files.isDirectory(results)) {
      return found;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(results, "exp*.md")) {
      for (Path p : s) {
        if (FRAGMENT.matcher(String.valueOf(p.getFileName())).matches()) {
          found.add(p);
        }
      }
    }
    found.sort(Comparator.comparingInt(DocsSection::number));
    return found;
  }

  private static int number(Path p) {
    Matcher m = FRAGMENT.matcher(String.valueOf(p.getFileName()));
    return m.matches() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
  }
}
