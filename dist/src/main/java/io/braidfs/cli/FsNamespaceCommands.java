package io.braidfs.cli;

import io.braidfs.client.ContentSummary;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.FileAttributes;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The {@code braid fs} subcommands that work on names and attributes: {@code ls}, {@code mkdir},
 * {@code rm}, {@code mv}, {@code stat} and {@code du}, plus the path helpers the others share.
 *
 * <p>Thread-safety: not thread-safe; picocli fills each in and calls it on one thread.
 */
final class FsNamespaceCommands {
  private FsNamespaceCommands() {}

  /** {@code braid fs ls [PATH]}. */
  @Command(
      name = "ls",
      description = {
        "Lists a directory (or shows one file), one entry per line:",
        "mode, owner, group, size in bytes, modification time, name."
      })
  static final class Ls implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Mixin HumanSizes sizes = new HumanSizes();

    @Option(
        names = {"-R", "--recursive"},
        description = "Everything under the directory, each with its whole path.")
    boolean recursive;

    @Parameters(
        arity = "0..1",
        paramLabel = "PATH",
        defaultValue = "/",
        description = "The directory or file (default: /).")
    String path = "/";

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session -> {
                String p = FsSession.resolve(path);
                FileAttributes a = session.stat(p);
                List<List<String>> rows = new ArrayList<>();
                if (a.isDirectory() && recursive) {
                  try {
                    session.tree(
                        p,
                        true,
                        (q, qa) -> {
                          if (!q.equals(p)) {
                            rows.add(row(qa, q, sizes));
                          }
                        });
                  } catch (PathFailure e) {
                    // What could be listed is shown; the failures were reported as they came.
                    print(s, FsFormat.table(rows, 3));
                    throw e;
                  }
                } else if (a.isDirectory()) {
                  for (DirectoryEntry e : session.list(p)) {
                    FileAttributes ea = e.attributes();
                    rows.add(
                        row(ea != null ? ea : session.lstat(child(p, e.name())), e.name(), sizes));
                  }
                } else {
                  rows.add(row(a, p, sizes));
                }
                print(s, FsFormat.table(rows, 3));
                return Braid.EXIT_OK;
              });
    }

    private static List<String> row(FileAttributes a, String name, HumanSizes sizes) {
      return List.of(
          FsFormat.modeString(a),
          a.user(),
          a.group(),
          sizes.format(a.size()),
          FsFormat.minutes(a.mtimeNanos()),
          a.isSymlink() ? name + " -> " + a.symlinkTarget() : name);
    }
  }

  /** {@code braid fs mkdir [-p] PATH...}. */
  @Command(
      name = "mkdir",
      mixinStandardHelpOptions = true,
      description = "Makes directories (mode 0777 less the umask, braid.client.umask).")
  static final class Mkdir implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-p", "--parents"},
        description = "Make missing parents too; a directory that exists is no error.")
    boolean parents;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "The directories to make.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      return parent(fs)
          .run(
              spec(spec),
              session ->
                  session.each(
                      paths,
                      p -> {
                        if (parents) {
                          session.mkdirs(p);
                        } else {
                          session.mkdir(p);
                        }
                      }));
    }
  }

  /** {@code braid fs rm [-r] [-f] [-skipTrash] PATH...}: into the trash when it is on. */
  @Command(
      name = "rm",
      mixinStandardHelpOptions = true,
      description = {
        "Removes files, symlinks and (-r) directories; to the trash when it is on.",
        "With braid.fs.trash.interval set, moves them to /user/USER/.Trash/Current instead"
            + " (as hdfs dfs -rm); what is already in a trash is deleted."
      })
  static final class Rm implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-r", "-R", "--recursive"},
        description = "Remove directories and everything under them.")
    boolean recursive;

    @Option(
        names = {"-f", "--force"},
        description = "A path that does not exist is no error.")
    boolean force;

    @Option(
        names = {"-skipTrash", "--skip-trash"},
        description = "Delete at once, even when the trash is on.")
    boolean skipTrash;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "What to remove.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session -> {
                FsTrash trash =
                    new FsTrash(
                        session, java.time.Clock.systemDefaultZone(), s.commandLine().getOut());
                boolean toTrash = trash.enabled() && !skipTrash;
                return session.each(
                    paths,
                    p -> {
                      if (p.replace("/", "").isEmpty()) {
                        throw new PathFailure(p, "will not remove the root");
                      }
                      FileAttributes a = force ? session.lstatIfExists(p) : session.lstat(p);
                      if (a == null) {
                        return; // -f: nothing there (a dangling symlink is something)
                      }
                      if (a.isDirectory() && !recursive) {
                        throw new PathFailure(p, "is a directory (use rm -r)");
                      }
                      if (!toTrash || !trash.moveToTrash(p)) {
                        session.delete(p, recursive);
                      }
                    });
              });
    }
  }

  /** {@code braid fs mv SRC DST}. */
  @Command(
      name = "mv",
      mixinStandardHelpOptions = true,
      description = {
        "Moves or renames a file or directory, atomically.",
        "If DST is a directory, SRC moves into it; an existing file is never replaced."
      })
  static final class Mv implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SRC", description = "What to move.")
    String source = "";

    @Parameters(index = "1", paramLabel = "DST", description = "The new name, or a directory.")
    String destination = "";

    @Override
    public Integer call() {
      return parent(fs)
          .run(
              spec(spec),
              session -> {
                session.move(FsSession.resolve(source), FsSession.resolve(destination));
                return Braid.EXIT_OK;
              });
    }
  }

  /** {@code braid fs stat PATH}. */
  @Command(
      name = "stat",
      mixinStandardHelpOptions = true,
      description = "Shows every attribute of a file, directory or symlink (not followed).")
  static final class Stat implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "The file, directory or symlink.")
    String path = "";

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session -> {
                String p = FsSession.resolve(path);
                FileAttributes a = session.lstat(p);
                List<List<String>> rows = new ArrayList<>();
                rows.add(List.of("path:", p));
                rows.add(List.of("type:", FsFormat.typeName(a)));
                if (a.isSymlink()) {
                  rows.add(List.of("target:", a.symlinkTarget()));
                }
                if (a.isCharacterDevice() || a.isBlockDevice()) {
                  rows.add(List.of("device:", FsFormat.device(a.rdev())));
                }
                rows.add(List.of("size:", Long.toString(a.size())));
                if (a.isFile()) {
                  // What its chunks hold (one replica): less than the size for a sparse file.
                  rows.add(List.of("allocated:", Long.toString(a.allocatedBytes())));
                }
                rows.add(
                    List.of(
                        "mode:",
                        String.format("%04o (%s)", a.mode() & 07777, FsFormat.modeString(a))));
                rows.add(List.of("owner:", a.user()));
                rows.add(List.of("group:", a.group()));
                rows.add(List.of("links:", Integer.toString(a.nlink())));
                rows.add(List.of("inode:", Long.toString(a.inodeId())));
                rows.add(List.of("modified:", FsFormat.full(a.mtimeNanos())));
                rows.add(List.of("accessed:", FsFormat.full(a.atimeNanos())));
                rows.add(List.of("changed:", FsFormat.full(a.ctimeNanos())));
                if (a.isFile()) {
                  rows.add(List.of("layout:", FsFormat.layout(a.layout())));
                  rows.add(List.of("block size:", FsFormat.size(a.blockSize())));
                }
                List<String> lines = new ArrayList<>();
                for (List<String> r : rows) {
                  lines.add(String.format("%-12s%s", r.get(0), r.get(1)));
                }
                print(s, lines);
                return Braid.EXIT_OK;
              });
    }
  }

  /** {@code braid fs du [-s] PATH}. */
  @Command(
      name = "du",
      description = {
        "Shows space used: bytes of data, bytes on disk (all replicas), path.",
        "For a directory, one line per entry in it; with -s one line for the whole tree."
      })
  static final class Du implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-s", "--summary"},
        description = "One line for PATH and everything under it.")
    boolean summary;

    @Mixin HumanSizes sizes = new HumanSizes();

    @Parameters(
        arity = "0..1",
        paramLabel = "PATH",
        defaultValue = "/",
        description = "The directory or file (default: /).")
    String path = "/";

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session -> {
                String p = FsSession.resolve(path);
                List<String> targets = new ArrayList<>();
                if (!summary && session.stat(p).isDirectory()) {
                  for (DirectoryEntry e : session.list(p)) {
                    targets.add(child(p, e.name()));
                  }
                } else {
                  targets.add(p);
                }
                List<List<String>> rows = new ArrayList<>();
                for (String t : targets) {
                  ContentSummary c = session.contentSummary(t);
                  rows.add(List.of(sizes.format(c.length()), sizes.format(c.spaceConsumed()), t));
                }
                print(s, FsFormat.table(rows, 0, 1));
                return Braid.EXIT_OK;
              });
    }
  }

  // ---- helpers shared by the fs subcommands ---------------------------------------------------

  /** {@code name} in directory {@code dir}. */
  static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  /** The last component of {@code path}; empty for the root. */
  static String name(String path) {
    String p = path;
    while (p.endsWith("/") && p.length() > 1) {
      p = p.substring(0, p.length() - 1);
    }
    return p.substring(p.lastIndexOf('/') + 1);
  }

  static void print(CommandSpec spec, List<String> lines) {
    PrintWriter out = spec.commandLine().getOut();
    lines.forEach(out::println);
    out.flush();
  }

  static FsCommand parent(@Nullable FsCommand fs) {
    if (fs == null) {
      throw new IllegalStateException("not run as a subcommand of braid fs");
    }
    return fs;
  }

  static CommandSpec spec(@Nullable CommandSpec spec) {
    return Picocli.spec(spec);
  }
}
