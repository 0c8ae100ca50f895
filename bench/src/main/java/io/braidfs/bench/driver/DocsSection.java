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

/**
 * The generated section of docs/benchmarks.md: everything between {@link #BEGIN} and {@link #END}
 * is replaced by the header and the fragments ({@code expN-NAME.md}) found in the results
 * directory, in experiment order. Text outside the markers is left alone; a document without them
 * gets the section appended.
 */
final class DocsSection {
  static final String BEGIN = "<!-- BEGIN braid bench: generated, do not edit by hand -->";
  static final String END = "<!-- END braid bench -->";

  private static final Pattern FRAGMENT = Pattern.compile("exp(\\d+)-.*\\.md");

  private DocsSection() {}

  /** Rewrites the section of {@code doc} from the fragments in {@code results}. */
  static void update(Path doc, Path results, String header) throws IOException {
    Path dir =
        requireNonNull(doc.toAbsolutePath().getParent()) // a file's, so never null
            .relativize(results.toAbsolutePath());
    StringBuilder section = new StringBuilder(BEGIN).append('\n').append(header);
    for (Path f : fragments(results)) {
      section.append('\n');
      section.append(
          Files.readString(f, StandardCharsets.UTF_8).replace(Results.DIR, dir.toString()));
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

  private static List<Path> fragments(Path results) throws IOException {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(results, "exp*.md")) {
      for (Path p : s) {
        if (FRAGMENT.matcher(p.getFileName().toString()).matches()) {
          found.add(p);
        }
      }
    }
    found.sort(Comparator.comparingInt(DocsSection::number));
    return found;
  }

  private static int number(Path p) {
    Matcher m = FRAGMENT.matcher(p.getFileName().toString());
    return m.matches() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
  }
}
