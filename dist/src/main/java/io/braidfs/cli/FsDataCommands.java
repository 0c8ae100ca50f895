package io.braidfs.cli;

import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.FileAttributes;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The {@code braid fs} subcommands that move file contents: {@code put}, {@code get} and {@code
 * cat}.
 *
 * <p>{@code put} and {@code get} write to a temporary name beside the destination ({@value
 * #COPYING} appended, as {@code hdfs dfs -put} does) and rename it into place once every byte is
 * there, so the destination never holds half a file; a failed or interrupted copy removes the
 * temporary file. Given a directory, they copy everything under it, several files at a time on a
 * {@link ParallelCopy}.
 *
 * <p>Thread-safety: not thread-safe; picocli fills each in and calls it on one thread.
 */
final class FsDataCommands {
  private static final Logger LOG = LoggerFactory.getLogger(FsDataCommands.class);

  /** Appended to a destination's name while it is being written. */
  static final String COPYING = "._COPYING_";

  private FsDataCommands() {}

  /** Files copied at once when a directory is copied, unless {@code -t} says otherwise. */
  static final int DEFAULT_THREADS = 4;

  /** {@code braid fs put LOCAL REMOTE}. */
  @Command(
      name = "put",
      mixinStandardHelpOptions = true,
      description = {
        "Copies a local file (- for stdin) or directory into Braid, making missing parent"
            + " directories.",
        "If REMOTE is a directory the file keeps its name there. A directory is copied with"
            + " everything under it (into REMOTE if it is a directory), several files at a time."
            + " A progress bar shows on a terminal for copies of 64 MiB or more."
      })
  static final class Put implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-f", "--force"},
        description = "Replace REMOTE if it exists (files under a directory copied: each).")
    boolean force;

    @Option(
        names = {"-t", "--threads"},
        paramLabel = "THREADS",
        description = "Files copied at once when LOCAL is a directory (default: ${DEFAULT-VALUE}).")
    int threads = DEFAULT_THREADS;

    @Parameters(
        index = "0",
        paramLabel = "LOCAL",
        description = "The local file or directory, or - for stdin.")
    String local = "";

    @Parameters(index = "1", paramLabel = "REMOTE", description = "The Braid file or directory.")
    String remote = "";

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      checkThreads(s, threads);
      return FsNamespaceCommands.parent(fs).run(s, this::put);
    }

    private int put(FsSession session) throws IOException {
      boolean fromStdin = local.equals("-");
      Path source = fromStdin ? null : localPath(local);
      long size = -1;
      if (source != null) {
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(source, BasicFileAttributes.class);
        } catch (IOException e) {
          throw new PathFailure(local, e);
        }
        if (a.isDirectory()) {
          return putTree(session, source);
        }
        size = a.size();
      }
      String target = FsSession.resolve(remote);
      if (isDirectory(session, target)) {
        Path name = source == null ? null : source.getFileName();
        if (name == null) {
          throw new PathFailure(target, "is a directory (name the file to write)");
        }
        target = FsNamespaceCommands.child(target, name.toString());
      }
      if (!force && session.exists(target)) {
        throw new PathFailure(target, "file exists (use -f to replace it)");
      }
      try (ProgressBar bar = Transfer.progressBar("put", size)) {
        LocalSource in;
        if (source == null) {
          in = () -> unclosable(session.stdin());
        } else {
          Path file = source;
          in = () -> open(file);
        }
        putFile(session, in, local, target, size, bar);
      }
      return Braid.EXIT_OK;
    }

    /**
     * Copies directory {@code source} and everything under it, as {@code hdfs dfs -put} does: into
     * REMOTE if that is a directory, else to REMOTE. Directories are made as the walk meets them;
     * the files are then copied {@link #threads} at a time.
     */
    private int putTree(FsSession session, Path source) throws PathFailure {
      String dest = FsSession.resolve(remote);
      FileAttributes d = session.statIfExists(dest);
      Path name = source.toAbsolutePath().normalize().getFileName();
      String root = dest;
      if (d != null && d.isDirectory() && name != null) {
        root = FsNamespaceCommands.child(dest, name.toString());
      } else if (d != null && !d.isDirectory()) {
        throw new PathFailure(dest, "file exists and is not a directory");
      }
      ParallelCopy copies = new ParallelCopy(session, "put", root);
      String top = root;
      try {
        // LOCAL itself is followed if a symlink; symlinks under it are not (see planFile).
        Path start = Files.isSymbolicLink(source) ? source.toRealPath() : source;
        Files.walkFileTree(
            start,
            new SimpleFileVisitor<>() {
              @Override
              public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
                if (session.stop().isRequested()) {
                  copies.failed(new PathFailure(dir.toString(), "interrupted"));
                  return FileVisitResult.TERMINATE;
                }
                String to = remoteFor(top, start, dir);
                try {
                  FileAttributes t = session.statIfExists(to);
                  if (t == null) {
                    session.mkdirs(to);
                  } else if (!t.isDirectory()) {
                    throw new PathFailure(to, "file exists and is not a directory");
                  }
                } catch (PathFailure f) {
                  copies.failed(f);
                  return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
              }

              @Override
              public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
                planFile(session, copies, file, a, remoteFor(top, start, file));
                return FileVisitResult.CONTINUE;
              }

              @Override
              public FileVisitResult visitFileFailed(Path file, IOException e) {
                copies.failed(new PathFailure(file.toString(), e));
                return FileVisitResult.CONTINUE;
              }
            });
      } catch (IOException e) {
        throw new PathFailure(local, e); // resolving a symlinked LOCAL; the visitor throws nothing
      }
      return copies.run(threads);
    }

    /** Adds the copy of local {@code file} to {@code to}; a symlink is followed to a file only. */
    private void planFile(
        FsSession session, ParallelCopy copies, Path file, BasicFileAttributes listed, String to) {
      String shown = file.toString();
      BasicFileAttributes a = listed;
      if (a.isSymbolicLink()) {
        try {
          a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
          copies.failed(new PathFailure(shown, e));
          return;
        }
        if (a.isDirectory()) {
          copies.failed(new PathFailure(shown, "is a symlink to a directory (not followed)"));
          return;
        }
      }
      if (!a.isRegularFile()) {
        copies.failed(new PathFailure(shown, "is not a regular file"));
        return;
      }
      long size = a.size();
      copies.add(
          size,
          bar -> {
            if (!force && session.exists(to)) {
              throw new PathFailure(to, "file exists (use -f to replace it)");
            }
            putFile(session, () -> openLocal(file, shown), shown, to, size, bar);
          });
    }

    /** {@code path} (under {@code source}) as the Braid path it is copied to under {@code top}. */
    private static String remoteFor(String top, Path source, Path path) {
      String to = top;
      Path relative = source.relativize(path);
      if (relative.toString().isEmpty()) {
        return to;
      }
      for (Path part : relative) {
        to = FsNamespaceCommands.child(to, part.toString());
      }
      return to;
    }

    /**
     * Copies what {@code source} opens into {@code target}, through {@code target._COPYING_}
     * renamed into place when complete; a failure or stop removes the temporary file.
     *
     * @param from the local name in messages
     * @param bar stepped by the bytes copied; null for none
     */
    private void putFile(
        FsSession session,
        LocalSource source,
        String from,
        String target,
        long size,
        @Nullable ProgressBar bar)
        throws PathFailure {
      String temp = target + COPYING;
      boolean done = false;
      BraidOutputStream out = null;
      try (InputStream in = source.open()) {
        out = session.create(temp, target);
        Transfer.copy(in, from, out, target, size, session.stop(), bar);
        try {
          out.close();
        } catch (IOException e) {
          throw new PathFailure(target, e);
        }
        session.replace(temp, target, !force);
        done = true;
      } catch (PathFailure e) {
        throw e;
      } catch (IOException e) {
        throw new PathFailure(from, e); // closing the local file
      } finally {
        if (!done) {
          abandon("put", session, out, temp);
        }
      }
    }

    private InputStream open(Path source) throws PathFailure {
      return openLocal(source, local);
    }

    /**
     * Best effort: drops what was written without committing it, then removes the file; shared with
     * {@code cp}, which names itself as {@code task}.
     */
    static void abandon(
        String task, FsSession session, @Nullable BraidOutputStream out, String temp) {
      if (out == null) {
        return;
      }
      out.abort();
      try {
        session.delete(temp, false);
      } catch (PathFailure e) {
        LOG.warn("{}: could not remove {} after a failed copy: {}", task, temp, e.getMessage());
      }
    }
  }

  /** Opens a local file to read. */
  @FunctionalInterface
  private interface LocalSource {
    InputStream open() throws PathFailure;
  }

  private static InputStream openLocal(Path file, String shown) throws PathFailure {
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw new PathFailure(shown, e);
    }
  }

  /** {@code braid fs get REMOTE LOCAL}. */
  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = {
        "Copies a file or directory out of Braid into a local file or directory.",
        "If LOCAL is a directory the file keeps its name there. A directory is copied with"
            + " everything under it (into LOCAL if it is a directory), several files at a time."
            + " A progress bar shows on a terminal for copies of 64 MiB or more."
      })
  static final class Get implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-f", "--force"},
        description = "Replace LOCAL if it exists (files under a directory copied: each).")
    boolean force;

    @Option(
        names = {"-t", "--threads"},
        paramLabel = "THREADS",
        description =
            "Files copied at once when REMOTE is a directory (default: ${DEFAULT-VALUE}).")
    int threads = DEFAULT_THREADS;

    @Parameters(index = "0", paramLabel = "REMOTE", description = "The Braid file or directory.")
    String remote = "";

    @Parameters(index = "1", paramLabel = "LOCAL", description = "The local file or directory.")
    String local = "";

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      checkThreads(s, threads);
      return FsNamespaceCommands.parent(fs).run(s, this::get);
    }

    private int get(FsSession session) throws IOException {
      String source = FsSession.resolve(remote);
      FileAttributes a = session.statIfExists(source);
      if (a != null && a.isDirectory()) {
        return getTree(session, source);
      }
      // Open first: a missing or unreadable source fails before anything local is touched.
      try (BraidInputStream in = session.open(source)) {
        Path target = localPath(local);
        if (Files.isDirectory(target)) {
          target = target.resolve(FsNamespaceCommands.name(source));
        }
        String shown = target.toString();
        if (!force && Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
          throw new PathFailure(shown, "file exists (use -f to replace it)");
        }
        Path temp = temporary(target);
        long size = length(in, source);
        try (ProgressBar bar = Transfer.progressBar("get", size)) {
          copyInto(session, in, source, target, temp, size, bar);
        }
      }
      return Braid.EXIT_OK;
    }

    /**
     * Copies directory {@code source} and everything under it, as {@code hdfs dfs -get} does: into
     * LOCAL if that is a directory, else to LOCAL. Directories are made as the walk meets them; the
     * files are then copied {@link #threads} at a time.
     */
    private int getTree(FsSession session, String source) throws PathFailure {
      Path dest = localPath(local);
      Path root = dest;
      String name = FsNamespaceCommands.name(source);
      if (Files.isDirectory(dest) && !name.isEmpty()) {
        root = dest.resolve(name);
      } else if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dest)) {
        throw new PathFailure(dest.toString(), "file exists and is not a directory");
      }
      ParallelCopy copies = new ParallelCopy(session, "get", root.toString());
      planTree(session, copies, source, root);
      return copies.run(threads);
    }

    /** Makes local directory {@code to} and adds the copies of the files under {@code from}. */
    private void planTree(FsSession session, ParallelCopy copies, String from, Path to) {
      if (session.stop().isRequested()) {
        copies.failed(new PathFailure(from, "interrupted"));
        return;
      }
      List<DirectoryEntry> entries;
      try {
        Files.createDirectories(to);
        entries = session.list(from);
      } catch (PathFailure f) {
        copies.failed(f);
        return;
      } catch (IOException e) {
        copies.failed(new PathFailure(to.toString(), e));
        return;
      }
      for (DirectoryEntry e : entries) {
        String child = FsNamespaceCommands.child(from, e.name());
        try {
          Path target = to.resolve(e.name());
          FileAttributes listed = e.attributes();
          FileAttributes ea = listed != null ? listed : session.lstat(child);
          if (ea.isSymlink()) {
            ea = session.stat(child);
            if (ea.isDirectory()) {
              throw new PathFailure(child, "is a symlink to a directory (not followed)");
            }
          }
          if (ea.isDirectory()) {
            planTree(session, copies, child, target);
          } else if (ea.isFile()) {
            long size = ea.size();
            copies.add(size, bar -> getFile(session, child, target, bar));
          } else {
            throw new PathFailure(
                child, "is not a file or directory (" + FsFormat.typeName(ea) + ")");
          }
        } catch (PathFailure f) {
          copies.failed(f);
        } catch (InvalidPathException x) {
          copies.failed(new PathFailure(child, "invalid local name: " + x.getReason()));
        }
      }
    }

    /** Copies Braid file {@code source} to local {@code target}, one of a tree's copies. */
    private void getFile(FsSession session, String source, Path target, @Nullable ProgressBar bar)
        throws PathFailure {
      if (!force && Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        throw new PathFailure(target.toString(), "file exists (use -f to replace it)");
      }
      try (BraidInputStream in = session.open(source)) {
        copyInto(session, in, source, target, temporary(target), length(in, source), bar);
      } catch (PathFailure e) {
        throw e;
      } catch (IOException e) {
        throw new PathFailure(source, e); // closing the source
      }
    }

    /** {@code .NAME._COPYING_} beside {@code target}. */
    private static Path temporary(Path target) throws PathFailure {
      Path parent = target.toAbsolutePath().getParent();
      Path fileName = target.getFileName();
      if (parent == null || fileName == null) {
        throw new PathFailure(target.toString(), "is not a file name");
      }
      return parent.resolve("." + fileName + COPYING);
    }

    /** Copies {@code in} into {@code temp}, then moves that onto {@code target}. */
    private void copyInto(
        FsSession session,
        BraidInputStream in,
        String source,
        Path target,
        Path temp,
        long size,
        @Nullable ProgressBar bar)
        throws PathFailure {
      String shown = target.toString();
      boolean done = false;
      try {
        try (OutputStream out =
            Files.newOutputStream(
                temp,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
          Transfer.copy(in, source, out, shown, size, session.stop(), bar);
        }
        if (force) {
          Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } else {
          Files.move(temp, target);
        }
        done = true;
      } catch (PathFailure e) {
        throw e;
      } catch (FileAlreadyExistsException e) {
        throw new PathFailure(shown, "file exists (use -f to replace it)");
      } catch (IOException e) {
        throw new PathFailure(shown, e); // the temporary file or the move: both local
      } finally {
        if (!done) {
          try {
            Files.deleteIfExists(temp);
          } catch (IOException e) {
            LOG.warn("get: could not remove {} after a failed copy: {}", temp, e.toString());
          }
        }
      }
    }
  }

  /** Refuses a {@code -t} below 1 as a usage error. */
  private static void checkThreads(CommandSpec spec, int threads) {
    if (threads < 1) {
      throw new ParameterException(
          spec.commandLine(), "Invalid value for option '--threads': " + threads + " (at least 1)");
    }
  }

  /** {@code braid fs cat PATH...}. */
  @Command(
      name = "cat",
      mixinStandardHelpOptions = true,
      description = "Writes files' contents to stdout, one after the other.")
  static final class Cat implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "The Braid files.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      return FsNamespaceCommands.parent(fs)
          .run(
              s,
              session -> {
                s.commandLine().getOut().flush();
                OutputStream out = session.stdout();
                return session.each(
                    paths,
                    p -> {
                      try (BraidInputStream in = session.open(p)) {
                        Transfer.copy(in, p, out, "stdout", -1, "cat", session.stop());
                        out.flush();
                      } catch (PathFailure e) {
                        throw e;
                      } catch (IOException e) {
                        throw new PathFailure("stdout", e);
                      }
                    });
              });
    }
  }

  private static long length(BraidInputStream in, String path) throws PathFailure {
    try {
      return in.length();
    } catch (IOException e) {
      throw new PathFailure(path, e);
    }
  }

  /** Whether {@code path} is a directory; false if it does not exist. */
  private static boolean isDirectory(FsSession session, String path) throws PathFailure {
    if (!session.exists(path)) {
      return false;
    }
    FileAttributes a = session.stat(path);
    return a.isDirectory();
  }

  private static Path localPath(String local) throws PathFailure {
    try {
      return Path.of(local);
    } catch (InvalidPathException e) {
      throw new PathFailure(local, "invalid local path: " + e.getReason());
    }
  }

  /** {@code in}, whose close does nothing: stdin belongs to the process. */
  private static InputStream unclosable(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public void close() {}
    };
  }
}
