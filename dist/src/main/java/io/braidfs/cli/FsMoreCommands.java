package io.braidfs.cli;

import static io.braidfs.cli.FsNamespaceCommands.parent;
import static io.braidfs.cli.FsNamespaceCommands.spec;

import io.braidfs.client.BraidInputStream;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.client.ContentSummary;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileSystemStats;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The {@code hdfs dfs} commands people type besides listing and copying: {@code touch}, {@code
 * test}, {@code count}, {@code setrep}, {@code df} and {@code head}.
 *
 * <p>Thread-safety: picocli runs one command on one thread.
 */
final class FsMoreCommands {
  private FsMoreCommands() {}

  /** {@code braid fs touch PATH...}. */
  @Command(
      name = "touch",
      mixinStandardHelpOptions = true,
      description = "Creates empty files, or sets an existing one's modification time to now.")
  static final class Touch implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "The files.")
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
                        if (session.exists(p)) {
                          session.touch(p);
                        } else {
                          try {
                            session.createEmpty(p);
                          } catch (PathFailure e) {
                            if (!session.exists(p)) {
                              throw e;
                            }
                            session.touch(p); // made by someone else meanwhile
                          }
                        }
                      }));
    }
  }

  /** {@code braid fs test -e|-d|-f|-s|-z PATH}: the answer is the exit code alone. */
  @Command(
      name = "test",
      mixinStandardHelpOptions = true,
      description = {
        "Answers with the exit code alone: 0 if PATH is as asked, 1 if not.",
        "An error other than a missing path (no MDS, permission) is one line and exit code 1."
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:yes", "1:no, or the check failed", "2:bad command line"})
  static final class Test implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @ArgGroup(multiplicity = "1")
    @Nullable Check check;

    static final class Check {
      @Option(names = "-e", description = "It exists.")
      boolean exists;

      @Option(names = "-d", description = "It is a directory.")
      boolean directory;

      @Option(names = "-f", description = "It is a file.")
      boolean file;

      @Option(names = "-s", description = "It is not empty (a file with bytes).")
      boolean nonEmpty;

      @Option(names = "-z", description = "It is an empty file.")
      boolean empty;
    }

    @Parameters(index = "0", paramLabel = "PATH", description = "What to test.")
    String path = "";

    @Override
    public Integer call() {
      Check c = java.util.Objects.requireNonNull(check, "picocli requires one check");
      return parent(fs)
          .run(
              spec(spec),
              session -> {
                String p = FsSession.resolve(path);
                FileAttributes a = session.statIfExists(p);
                if (a == null) {
                  return Braid.EXIT_FAILURE;
                }
                boolean yes =
                    c.exists
                        || (c.directory && a.isDirectory())
                        || (c.file && a.isFile())
                        || (c.nonEmpty && a.size() > 0)
                        || (c.empty && a.isFile() && a.size() == 0);
                return yes ? Braid.EXIT_OK : Braid.EXIT_FAILURE;
              });
    }
  }

  /** {@code braid fs count PATH...}: as {@code hdfs dfs -count}. */
  @Command(
      name = "count",
      mixinStandardHelpOptions = true,
      description = {
        "Counts what is under each path, one line each, as hdfs dfs -count:",
        "directories (the path's own included), files, bytes of data, path."
      })
  static final class Count implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "The paths.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session -> {
                List<List<String>> rows = new ArrayList<>();
                int code =
                    session.each(
                        paths,
                        p -> {
                          ContentSummary c = session.contentSummary(p);
                          rows.add(
                              List.of(
                                  Long.toString(c.directoryCount()),
                                  Long.toString(c.fileCount()),
                                  Long.toUnsignedString(c.length()),
                                  p));
                        });
                FsNamespaceCommands.print(s, FsFormat.table(rows, 0, 1, 2));
                return code;
              });
    }
  }

  /** {@code braid fs setrep N PATH...}: changes existing files, every file under a directory. */
  @Command(
      name = "setrep",
      mixinStandardHelpOptions = true,
      description = {
        "Changes the replication of existing files; of a directory, of every file under it.",
        "The MDS adds or removes replicas in the background (braid admin fsck shows progress)."
      })
  static final class Setrep implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(index = "0", paramLabel = "N", description = "Replicas per chunk.")
    int replication;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "The files.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      if (replication < 1) {
        throw new picocli.CommandLine.ParameterException(
            spec(spec).commandLine(), "N must be 1 or more, not " + replication);
      }
      return parent(fs)
          .run(
              spec(spec),
              session ->
                  session.each(
                      paths,
                      p ->
                          session.tree(
                              p,
                              true,
                              (path, a) -> {
                                if (a.isFile()) {
                                  session.setReplication(path, replication);
                                }
                              })));
    }
  }

  /** {@code braid fs df [-h]}: the cluster's space, as {@code hdfs dfs -df}. */
  @Command(
      name = "df",
      description = {
        "Shows the data servers' space for Braid and how full it is, as hdfs dfs -df:",
        "raw bytes, every replica counted."
      })
  static final class Df implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Mixin HumanSizes sizes = new HumanSizes();

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      FsCommand parent = parent(fs);
      String name = "braid://" + String.join(",", parent.configuration().get(ClientConfigKeys.MDS));
      return parent.run(
          s,
          session -> {
            FileSystemStats st = session.statFs();
            long size = st.rawCapacityBytes();
            long used = st.rawUsedBytes();
            String percent = size == 0 ? "0%" : (int) Math.ceil(100.0 * used / size) + "%";
            List<List<String>> rows =
                List.of(
                    List.of("Filesystem", "Size", "Used", "Available", "Use%"),
                    List.of(
                        name,
                        sizes.format(size),
                        sizes.format(used),
                        sizes.format(st.rawAvailableBytes()),
                        percent));
            FsNamespaceCommands.print(s, FsFormat.table(rows, 1, 2, 3, 4));
            return Braid.EXIT_OK;
          });
    }
  }

  /** {@code braid fs checksum PATH...}: as {@code hdfs dfs -checksum} with COMPOSITE_CRC. */
  @Command(
      name = "checksum",
      mixinStandardHelpOptions = true,
      description = {
        "Shows each file's CRC32C, composed from the data servers' checksums without reading the",
        "data: path, COMPOSITE-CRC32C, the CRC in hex (equal bytes give equal CRCs, whatever the",
        "layout; HDFS's with dfs.checksum.combine.mode=COMPOSITE_CRC are comparable)."
      })
  static final class Checksum implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "The files.")
    List<String> paths = new ArrayList<>();

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      return parent(fs)
          .run(
              s,
              session ->
                  session.each(
                      paths,
                      p -> {
                        int crc = session.checksum(p).crc32c();
                        FsNamespaceCommands.print(
                            s, List.of(p + "\tCOMPOSITE-CRC32C\t" + String.format("%08x", crc)));
                      }));
    }
  }

  /** {@code braid fs tail [-f] PATH}: the last kibibyte, then what is appended. */
  @Command(
      name = "tail",
      mixinStandardHelpOptions = true,
      description = "Writes the last 1 KiB of a file to stdout; with -f, then what is appended.")
  static final class Tail implements Callable<Integer> {
    private static final java.time.Duration POLL = java.time.Duration.ofSeconds(1);

    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-f", "--follow"},
        description = "Go on writing what is appended, until Ctrl-C (checked every second).")
    boolean follow;

    @Parameters(index = "0", paramLabel = "PATH", description = "The file.")
    String path = "";

    @Override
    public Integer call() {
      return parent(fs)
          .run(
              spec(spec),
              session -> {
                String p = FsSession.resolve(path);
                long from = Math.max(0, session.stat(p).size() - 1024);
                do {
                  from = copyFrom(session, p, from);
                } while (follow && !stopped(session));
                return Braid.EXIT_OK;
              });
    }

    /** Waits a poll interval for Ctrl-C; true if it came (or the wait was interrupted). */
    private static boolean stopped(FsSession session) {
      try {
        return session.stop().awaitRequest(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return true;
      }
    }

    /** Writes {@code path}'s bytes from {@code from} to its end; returns where they ended. */
    private static long copyFrom(FsSession session, String path, long from) throws IOException {
      // An open asks the MDS for the length (close-to-open), where stat may answer from a cache.
      try (BraidInputStream in = session.open(path)) {
        long size = in.length();
        if (size <= from) {
          return size; // nothing new (or the file was cut: go on from its new end)
        }
        in.seek(from);
        OutputStream out = session.stdout();
        long copied = in.transferTo(out);
        out.flush();
        return from + copied;
      } catch (PathFailure e) {
        throw e;
      } catch (IOException e) {
        throw new PathFailure(path, e);
      }
    }
  }

  /** {@code braid fs head PATH}: the first kibibyte, as {@code hdfs dfs -head}. */
  @Command(
      name = "head",
      mixinStandardHelpOptions = true,
      description = "Writes the first bytes of a file to stdout (1 KiB, or -c BYTES).")
  static final class Head implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = {"-c", "--bytes"},
        paramLabel = "BYTES",
        description = "How many bytes (default 1024).")
    int bytes = 1024;

    @Parameters(index = "0", paramLabel = "PATH", description = "The file.")
    String path = "";

    @Override
    public Integer call() {
      return parent(fs)
          .run(
              spec(spec),
              session -> {
                String p = FsSession.resolve(path);
                try (BraidInputStream in = session.open(p)) {
                  byte[] b = in.readNBytes(Math.max(0, bytes));
                  OutputStream out = session.stdout();
                  out.write(b);
                  out.flush();
                } catch (PathFailure e) {
                  throw e;
                } catch (IOException e) {
                  throw new PathFailure(p, e);
                }
                return Braid.EXIT_OK;
              });
    }
  }
}
