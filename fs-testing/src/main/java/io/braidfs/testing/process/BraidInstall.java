package io.braidfs.testing.process;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The release tarball ({@code dist/target/braid-VERSION.tar.gz}) unpacked: {@code bin/braid} and
 * {@code lib/}, as a user installs it.
 *
 * <p>Each tarball is unpacked once into a directory named after its size and modification time, so
 * a rebuilt tarball gets a new directory and two JVMs unpacking at once both end with the same
 * complete one (each unpacks aside and renames; the loser uses the winner's).
 *
 * <p>Thread-safety: immutable.
 */
public final class BraidInstall {
  /** System property naming the tarball; fs-it's pom sets it. */
  public static final String TARBALL_PROPERTY = "braid.tarball";

  private final Path home;

  private BraidInstall(Path home) {
    this.home = home;
  }

  /**
   * The tarball named by the system property {@value #TARBALL_PROPERTY}.
   *
   * @throws IllegalStateException if the property is unset or names no file
   */
  public static Path tarballFromProperty() {
    String p = System.getProperty(TARBALL_PROPERTY);
    if (p == null || p.isBlank()) {
      throw new IllegalStateException(
          "system property "
              + TARBALL_PROPERTY
              + " is not set: it names dist/target/braid-VERSION.tar.gz (fs-it's pom sets it)");
    }
    Path t = Path.of(p).toAbsolutePath().normalize();
    if (!Files.isRegularFile(t)) {
      throw new IllegalStateException(
          t
              + " does not exist: build the tarball first (mvn -B -o -DskipTests"
              + " -Dbraid.fuzz.skip=true package -pl dist -am), or run fs-it in the same reactor"
              + " as dist");
    }
    return t;
  }

  /**
   * Unpacks {@code tarball} under {@code dir} unless that was done already, with {@code tar}.
   *
   * @throws IOException if tar fails or the tarball holds no {@code bin/braid}
   */
  public static BraidInstall unpack(Path tarball, Path dir) throws IOException {
    String key = Files.size(tarball) + "-" + Files.getLastModifiedTime(tarball).toMillis();
    Path target = dir.resolve("braid-" + key);
    if (!Files.isDirectory(target)) {
      Files.createDirectories(dir);
      Path aside = Files.createTempDirectory(dir, ".unpack-");
      try {
        Commands.check(List.of("tar", "-xzf", tarball.toString(), "-C", aside.toString()));
        Path top = single(aside);
        try {
          Files.move(top, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException
            | DirectoryNotEmptyException
            | AtomicMoveNotSupportedException e) {
          if (!Files.isDirectory(target)) {
            throw e;
          } // another JVM was first: use its copy
        }
      } finally {
        delete(aside);
      }
    }
    BraidInstall install = new BraidInstall(target);
    if (!Files.isExecutable(install.command())) {
      throw new IOException(tarball + " unpacked to " + target + " has no executable bin/braid");
    }
    return install;
  }

  /** The installation's top directory. */
  public Path home() {
    return home;
  }

  /** {@code bin/braid}. */
  public Path command() {
    return home.resolve("bin").resolve("braid");
  }

  /** {@code lib/}, every jar the command runs with. */
  public Path lib() {
    return home.resolve("lib");
  }

  private static Path single(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> entries = s.toList();
      if (entries.size() != 1 || !Files.isDirectory(entries.get(0))) {
        throw new IOException("the tarball should hold one top directory, it holds " + entries);
      }
      return entries.get(0);
    }
  }

  private static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return home.toString();
  }
}
