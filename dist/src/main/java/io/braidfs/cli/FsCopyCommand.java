package io.braidfs.cli;

import static io.braidfs.cli.FsNamespaceCommands.child;
import static io.braidfs.cli.FsNamespaceCommands.name;

import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.FileAttributes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code braid fs cp [-f] [-p] SRC... DST}: copies within Braid, as {@code hdfs dfs -cp}.
 *
 * <p>A file is written to {@code DST._COPYING_} and renamed into place once every byte is there (as
 * {@code put} does), so DST never holds half a file; a failed copy removes the temporary file. A
 * directory is copied with everything under it, as {@code hdfs dfs -cp} does ({@code -r} is
 * accepted and changes nothing); into an existing directory of the same name its entries are
 * merged, and a file already there is replaced only with {@code -f}. A failure under a directory is
 * one line and the rest goes on. Symlinks under a directory are followed to files; one to a
 * directory is reported and skipped (following it could loop).
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "cp",
    mixinStandardHelpOptions = true,
    description = {
      "Copies files and directories (with all they hold) within Braid, as hdfs dfs -cp.",
      "With several SRCs, DST must be a directory; into DST if it is one. Each file is written"
          + " to NAME._COPYING_ and renamed into place when complete."
    })
final class FsCopyCommand implements Callable<Integer> {
  @ParentCommand @Nullable FsCommand fs;

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = {"-f", "--force"},
      description = "Replace files that exist at the destination.")
  boolean force;

  @Option(
      names = {"-p", "--preserve"},
      description =
          "Keep times, owner, group and permission (changing the owner needs a superuser).")
  boolean preserve;

  @Option(
      names = {"-r", "-R", "--recursive"},
      description = "Accepted as hdfs dfs -cp does: directories are always copied whole.")
  boolean recursive;

  @Parameters(
      arity = "2..*",
      paramLabel = "SRC... DST",
      hideParamSyntax = true,
      description = "What to copy, then where to.")
  List<String> paths = new ArrayList<>();

  @Override
  public Integer call() {
    return FsNamespaceCommands.parent(fs).run(FsNamespaceCommands.spec(spec), this::copyAll);
  }

  private int copyAll(FsSession session) throws PathFailure {
    List<String> sources = paths.subList(0, paths.size() - 1);
    String dst = FsSession.resolve(paths.get(paths.size() - 1));
    FileAttributes d = session.statIfExists(dst);
    boolean intoDirectory = d != null && d.isDirectory();
    if (sources.size() > 1 && !intoDirectory) {
      throw new PathFailure(
          dst,
          (d == null ? "no such directory" : "is not a directory")
              + " (copying several sources needs one)");
    }
    return session.each(
        sources, src -> copy(session, src, intoDirectory ? child(dst, name(src)) : dst));
  }

  private void copy(FsSession session, String given, String to) throws PathFailure {
    // Compared as written: "/a/" and "/a//b" must be seen as /a and /a/b.
    String src = normalized(given);
    String target = normalized(to);
    FileAttributes a = session.stat(src);
    if (a.isDirectory()) {
      if (src.equals("/") || target.equals(src) || target.startsWith(src + "/")) {
        throw new PathFailure(src, "cannot copy a directory into itself (" + target + ")");
      }
      copyTree(session, src, target, a);
    } else if (a.isFile()) {
      copyFile(session, src, target, a);
    } else {
      throw new PathFailure(src, "is not a file or directory (" + FsFormat.typeName(a) + ")");
    }
  }

  /** {@code path} without repeated or trailing slashes. */
  static String normalized(String path) {
    String p = path.replaceAll("/{2,}", "/");
    return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }

  /** Copies directory {@code src} and everything under it to {@code target}. */
  private void copyTree(FsSession session, String src, String target, FileAttributes a)
      throws PathFailure {
    FileAttributes t = session.statIfExists(target);
    if (t == null) {
      session.mkdir(target);
    } else if (!t.isDirectory()) {
      throw new PathFailure(target, "file exists and is not a directory");
    }
    int failures = 0;
    for (DirectoryEntry e : session.list(src)) {
      if (session.stop().isRequested()) {
        throw new PathFailure(target, "interrupted");
      }
      String from = child(src, e.name());
      String to = child(target, e.name());
      try {
        FileAttributes listed = e.attributes();
        FileAttributes ea = listed != null ? listed : session.lstat(from);
        if (ea.isSymlink()) {
          ea = session.stat(from);
          if (ea.isDirectory()) {
            throw new PathFailure(from, "is a symlink to a directory (not followed)");
          }
        }
        if (ea.isDirectory()) {
          copyTree(session, from, to, ea);
        } else if (ea.isFile()) {
          copyFile(session, from, to, ea);
        } else {
          throw new PathFailure(from, "is not a file or directory (" + FsFormat.typeName(ea) + ")");
        }
      } catch (PathFailure f) {
        session.report(f);
        failures++;
      }
    }
    if (preserve) {
      preserve(session, target, a); // last: the copies into it changed its times
    }
    if (failures > 0) {
      throw new PathFailure(src, failures + " failed under it (above)");
    }
  }

  /** Copies file {@code src} to {@code target} through {@code target._COPYING_}. */
  private void copyFile(FsSession session, String src, String target, FileAttributes a)
      throws PathFailure {
    FileAttributes t = session.lstatIfExists(target);
    if (t != null && t.isDirectory()) {
      throw new PathFailure(target, "is a directory");
    }
    if (t != null && !force) {
      throw new PathFailure(target, "file exists (use -f to replace it)");
    }
    String temp = target + FsDataCommands.COPYING;
    boolean done = false;
    BraidOutputStream out = null;
    try (BraidInputStream in = session.open(src)) {
      out = session.create(temp, target);
      Transfer.copy(in, src, out, target, a.size(), "cp", session.stop());
      try {
        out.close();
      } catch (IOException e) {
        throw new PathFailure(target, e);
      }
      if (preserve) {
        preserve(session, temp, a);
      }
      session.replace(temp, target, !force);
      done = true;
    } catch (PathFailure e) {
      throw e;
    } catch (IOException e) {
      throw new PathFailure(src, e); // closing the source
    } finally {
      if (!done) {
        FsDataCommands.Put.abandon("cp", session, out, temp);
      }
    }
  }

  /** {@code -p}: the source's times, then owner and group where they differ, then permission. */
  private static void preserve(FsSession session, String path, FileAttributes a)
      throws PathFailure {
    FileAttributes now = session.stat(path);
    if (!now.user().equals(a.user()) || !now.group().equals(a.group())) {
      session.setOwner(path, a.user(), a.group());
    }
    session.setPermission(path, a.mode() & 07777);
    session.setTimes(path, a.mtimeNanos(), a.atimeNanos());
  }
}
