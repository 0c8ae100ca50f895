package io.braidfs.cli;

import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.FileAttributes;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
 * temporary file.
 *
 * <p>Thread-safety: not thread-safe; picocli fills each in and calls it on one thread.
 */
final class FsDataCommands {
  private static final Logger LOG = LoggerFactory.getLogger(FsDataCommands.class);

  /** Appended to a destination's name while it is being written. */
  static final String COPYING = "._COPYING_";

  private FsDataCommands() {}

  /** {@code braid fs put LOCAL REMOTE}. */
  @Command(
      name = "put",
      mixinStandardHelpOptions = true,
      description = {
        "Copies a local file (- for stdin) into Braid, making missing parent directories.",
        "If REMOTE is a directory the file keeps its name there. A progress bar shows on a"
            + " terminal for copies of 64 MiB or more."
      })
  static final class Put implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-f", "--force"},
        description = "Replace REMOTE if it exists.")
    boolean force;

    @Parameters(index = "0", paramLabel = "LOCAL", description = "The local file, or - for stdin.")
    String local = "";

    @Parameters(index = "1", paramLabel = "REMOTE", description = "The Braid file or directory.")
    String remote = "";

    @Override
    public Integer call() {
      return FsNamespaceCommands.parent(fs).run(FsNamespaceCommands.spec(spec), this::put);
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
          throw new PathFailure(local, "is a directory (put copies one file)");
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
      String temp = target + COPYING;
      boolean done = false;
      BraidOutputStream out = null;
      try (InputStream in = source == null ? unclosable(session.stdin()) : open(source)) {
        out = session.create(temp, target);
        Transfer.copy(in, local, out, target, size, "put", session.stop());
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
        throw new PathFailure(local, e); // closing the local file
      } finally {
        if (!done) {
          abandon("put", session, out, temp);
        }
      }
      return Braid.EXIT_OK;
    }

    private InputStream open(Path source) throws PathFailure {
      try {
        return Files.newInputStream(source);
      } catch (IOException e) {
        throw new PathFailure(local, e);
      }
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

  /** {@code braid fs get REMOTE LOCAL}. */
  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = {
        "Copies a file out of Braid into a local file.",
        "If LOCAL is a directory the file keeps its name there. A progress bar shows on a"
            + " terminal for copies of 64 MiB or more."
      })
  static final class Get implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-f", "--force"},
        description = "Replace LOCAL if it exists.")
    boolean force;

    @Parameters(index = "0", paramLabel = "REMOTE", description = "The Braid file.")
    String remote = "";

    @Parameters(index = "1", paramLabel = "LOCAL", description = "The local file or directory.")
    String local = "";

    @Override
    public Integer call() {
      return FsNamespaceCommands.parent(fs).run(FsNamespaceCommands.spec(spec), this::get);
    }

    private int get(FsSession session) throws IOException {
      String source = FsSession.resolve(remote);
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
        Path parent = target.toAbsolutePath().getParent();
        Path fileName = target.getFileName();
        if (parent == null || fileName == null) {
          throw new PathFailure(shown, "is not a file name");
        }
        copyInto(session, in, source, target, parent.resolve("." + fileName + COPYING));
      }
      return Braid.EXIT_OK;
    }

    /** Copies {@code in} into {@code temp}, then moves that onto {@code target}. */
    private void copyInto(
        FsSession session, BraidInputStream in, String source, Path target, Path temp)
        throws PathFailure {
      String shown = target.toString();
      long size = length(in, source);
      boolean done = false;
      try {
        try (OutputStream out =
            Files.newOutputStream(
                temp,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
          Transfer.copy(in, source, out, shown, size, "get", session.stop());
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
