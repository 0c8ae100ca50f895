package io.braidfs.cli;

import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.FileAttributes;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The trash of {@code braid fs rm}, with HDFS's {@code .Trash} layout and {@code
 * TrashPolicyDefault} rules, done on the client as HDFS does.
 *
 * <p>Each user's trash is {@code /user/USER/.Trash}. {@code rm} renames what it removes to {@code
 * Current/} followed by its whole path ({@code /a/b} becomes {@code
 * /user/USER/.Trash/Current/a/b}); a name already taken there gets the time in milliseconds
 * appended, as HDFS does. Something already in a trash is deleted, and a path that holds the trash
 * (such as {@code /user/USER}) is refused unless {@code -skipTrash}. {@code expunge} deletes the
 * checkpoints ({@code .Trash/yyMMddHHmmss}, in the local time zone) older than the interval and
 * then renames {@code Current} to a new checkpoint named for now. The age comes from the
 * checkpoint's name, not its times, so a test can make an old one by name; the clock is a parameter
 * for the same reason.
 *
 * <p>Trash directories are made with mode 0700, as HDFS makes them.
 *
 * <p>Thread-safety: not thread-safe; one command uses it on one thread.
 */
final class FsTrash {
  /** The name of the directory {@code rm} moves into, under the trash root. */
  static final String CURRENT = "Current";

  /** HDFS's checkpoint name format, in the clock's time zone. */
  static final DateTimeFormatter CHECKPOINT = DateTimeFormatter.ofPattern("yyMMddHHmmss");

  /** A checkpoint's name: its time, and a {@code -N} HDFS adds when the name was taken. */
  private static final Pattern CHECKPOINT_NAME = Pattern.compile("(\\d{12})(-\\d+)?");

  private static final int TRASH_MODE = 0700;

  private final FsSession session;
  private final Clock clock;
  private final PrintWriter out;

  FsTrash(FsSession session, Clock clock, PrintWriter out) {
    this.session = session;
    this.clock = clock;
    this.out = out;
  }

  /** Whether {@code rm} moves things here rather than deleting them. */
  boolean enabled() {
    return !session.trashInterval().isZero();
  }

  /** This user's trash: {@code /user/USER/.Trash}. */
  String root() {
    return "/user/" + session.user() + "/.Trash";
  }

  /**
   * Moves {@code path} (absolute) into {@code Current}, printing HDFS's line {@code Moved: 'URI' to
   * trash at: URI} with where it went.
   *
   * @return false if {@code path} is already in a trash (the caller deletes it then)
   * @throws PathFailure if {@code path} holds the trash, or the move failed
   */
  boolean moveToTrash(String given) throws PathFailure {
    String path = given;
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String root = root();
    // Already in the caller's own trash: deleted. (Another user's trash is moved into one's own,
    // as HDFS does.)
    if (path.equals(root) || path.startsWith(root + "/")) {
      return false;
    }
    if ((root + "/").startsWith(path + "/")) {
      throw new PathFailure(
          path, "cannot move to the trash, as it holds the trash " + root + " (use -skipTrash)");
    }
    String current = root + "/" + CURRENT;
    String base = current + path;
    String parent = base.substring(0, base.lastIndexOf('/'));
    String leaf = FsNamespaceCommands.name(path);
    // Something trashed earlier (a file, a symbolic link) may hold the name of a directory on the
    // way: the first such one, looked at without following links, is passed by a renamed
    // directory, so nothing lands beside or through it.
    String prefix = current;
    for (String part : parent.substring(current.length()).split("/")) {
      if (part.isEmpty()) {
        continue;
      }
      prefix = prefix + "/" + part;
      FileAttributes a = session.lstatIfExists(prefix);
      if (a == null) {
        break; // mkdirs makes the rest
      }
      if (!a.isDirectory()) {
        parent = prefix + clock.millis() + parent.substring(prefix.length());
        break;
      }
    }
    // The home directory as mkdir makes one, the trash in it private, as HDFS makes them.
    session.mkdirs("/user/" + session.user());
    session.mkdirs(parent, TRASH_MODE);
    String target = FsNamespaceCommands.child(parent, leaf);
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0 || session.lstatIfExists(target) != null) {
        target = FsNamespaceCommands.child(parent, leaf) + (clock.millis() + attempt);
      }
      try {
        session.replace(path, target, true);
        break;
      } catch (PathFailure e) {
        if (attempt >= 10 || !taken(e)) {
          throw new PathFailure(path, "not moved to the trash: " + e.getMessage());
        }
      }
    }
    out.println("Moved: '" + session.uri(path) + "' to trash at: " + session.uri(target));
    out.flush();
    return true;
  }

  private static boolean taken(PathFailure e) {
    return e.getCause() != null && StatusExceptions.statusOf(e.getCause()) == Status.ALREADY_EXISTS;
  }

  /**
   * HDFS's {@code expunge}: deletes the checkpoints older than the interval, then checkpoints
   * {@code Current}. A name in the trash root that is not a checkpoint is left alone with a line on
   * {@code err}.
   */
  void expunge(PrintWriter err) throws PathFailure {
    String root = root();
    FileAttributes r = session.statIfExists(root);
    if (r == null || !r.isDirectory()) {
      return;
    }
    Instant now = clock.instant();
    Instant cutoff = now.minus(session.trashInterval());
    for (DirectoryEntry e : session.list(root)) {
      if (e.name().equals(CURRENT)) {
        continue;
      }
      String dir = FsNamespaceCommands.child(root, e.name());
      Instant made = checkpointTime(e.name());
      if (made == null) {
        err.println("Unexpected item in trash: " + session.uri(dir) + ". Ignoring.");
        err.flush();
        continue;
      }
      if (made.isBefore(cutoff)) {
        session.delete(dir, true);
        out.println("Deleted trash checkpoint: " + session.uri(dir));
      }
    }
    String current = root + "/" + CURRENT;
    if (session.statIfExists(current) != null) {
      String base = root + "/" + CHECKPOINT.format(LocalDateTime.ofInstant(now, clock.getZone()));
      String checkpoint = base;
      for (int attempt = 1; ; attempt++) {
        try {
          session.replace(current, checkpoint, true);
          break;
        } catch (PathFailure e) {
          if (attempt > 100 || !taken(e)) {
            throw e;
          }
          checkpoint = base + "-" + attempt;
        }
      }
      out.println("Created trash checkpoint: " + session.uri(checkpoint));
    }
    out.flush();
  }

  /** When the checkpoint of this name was made, or null if the name is not a checkpoint's. */
  private @Nullable Instant checkpointTime(String name) {
    Matcher m = CHECKPOINT_NAME.matcher(name);
    if (!m.matches()) {
      return null;
    }
    try {
      return LocalDateTime.parse(m.group(1), CHECKPOINT).atZone(clock.getZone()).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** {@code braid fs expunge}. */
  @Command(
      name = "expunge",
      mixinStandardHelpOptions = true,
      description = {
        "Empties the trash as hdfs dfs -expunge: old checkpoints go, Current becomes one.",
        "Deletes the checkpoints in /user/USER/.Trash older than braid.fs.trash.interval, then"
            + " renames .Trash/Current to a checkpoint named for now (yyMMddHHmmss)."
      })
  static final class Expunge implements Callable<Integer> {
    @ParentCommand @Nullable FsCommand fs;

    @Spec @Nullable CommandSpec spec;

    @Override
    public Integer call() {
      CommandSpec s = FsNamespaceCommands.spec(spec);
      return FsNamespaceCommands.parent(fs)
          .run(
              s,
              session -> {
                new FsTrash(session, Clock.systemDefaultZone(), s.commandLine().getOut())
                    .expunge(s.commandLine().getErr());
                return Braid.EXIT_OK;
              });
    }
  }
}
