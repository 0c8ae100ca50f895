package io.braidfs.cli;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.ContentSummary;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.DirectoryLayout;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileChecksum;
import io.braidfs.client.FileSystemStats;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.client.RenameSemantics;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@link BraidClient} calls {@code braid fs} makes, each turning a failure into a {@link
 * PathFailure} that names the path it was about, plus the command's streams and stop signal.
 *
 * <p>Paths given to it are resolved with {@link #resolve}: one without a leading {@code /} is taken
 * from the root.
 *
 * <p>Thread-safety: as {@link BraidClient}; one command uses it on one thread, except that the
 * copies of a recursive {@code put} or {@code get} run on a pool and share it: they use only the
 * client calls, {@link #stop()} and {@link #report}, which is synchronized so lines stay whole.
 */
final class FsSession {
  /** Mode of new directories before the client's umask: 0777, so 0755 with the usual 022. */
  static final int DIRECTORY_MODE = 0777;

  private final BraidClient client;
  private final StopSignal stop;
  private final Braid braid;
  private final String name;
  private final PrintWriter err;
  private final String user;
  private final String authority;
  private final Duration trashInterval;

  /**
   * A session of the command {@code name} (such as {@code braid fs rm}) over {@code client}, with
   * the streams of {@code braid} and errors reported on {@code err}.
   *
   * @param user who the client acts as
   * @param authority the MDS addresses as a {@code braid://} URI names them ({@code host:port,...})
   * @param trashInterval {@link FsConfigKeys#TRASH_INTERVAL}; zero for no trash
   */
  FsSession(
      BraidClient client,
      StopSignal stop,
      Braid braid,
      String name,
      PrintWriter err,
      String user,
      String authority,
      Duration trashInterval) {
    this.client = client;
    this.stop = stop;
    this.braid = braid;
    this.name = name;
    this.err = err;
    this.user = user;
    this.authority = authority;
    this.trashInterval = trashInterval;
  }

  /** Who the client acts as. */
  String user() {
    return user;
  }

  /** How long the trash keeps things; zero when there is no trash. */
  Duration trashInterval() {
    return trashInterval;
  }

  /** {@code path} (absolute) as a {@code braid://} URI, as messages show it to HDFS users. */
  String uri(String path) {
    return "braid://" + authority + path;
  }

  /** Something done to one path of several. */
  @FunctionalInterface
  interface PathWork {
    void run(String path) throws PathFailure;
  }

  /**
   * Runs {@code work} on every path (resolved) in turn, reporting each failure as one line and
   * going on with the next path, as rm(1) and cat(1) do; a stop request ends the loop.
   *
   * @return {@link Braid#EXIT_OK} if every path succeeded, else {@link Braid#EXIT_FAILURE}
   */
  int each(List<String> paths, PathWork work) {
    int code = Braid.EXIT_OK;
    for (String p : paths) {
      if (stop.isRequested()) {
        report(new PathFailure(resolve(p), "interrupted"));
        return Braid.EXIT_FAILURE;
      }
      try {
        work.run(resolve(p));
      } catch (PathFailure e) {
        report(e);
        code = Braid.EXIT_FAILURE;
      }
    }
    return code;
  }

  /** Reports a failure as the command's one line on stderr. */
  synchronized void report(PathFailure e) {
    err.println(name + ": " + e.getMessage());
    err.flush();
  }

  /** {@code path} as a Braid path: absolute, a relative one taken from the root. */
  static String resolve(String path) {
    if (path.startsWith(SCHEME)) {
      // The cluster a URI names was matched against the one connected to (FsCommand.run).
      int slash = path.indexOf('/', SCHEME.length());
      return slash < 0 ? "/" : path.substring(slash);
    }
    return path.startsWith("/") ? path : "/" + path;
  }

  /** How a Braid URI begins: {@code braid://HOST:PORT[,HOST:PORT...]/PATH}. */
  static final String SCHEME = "braid://";

  /** The MDS addresses a {@code braid://} URI names, as a set; null for a plain path. */
  static java.util.@Nullable Set<String> authority(String path) {
    if (!path.startsWith(SCHEME)) {
      return null;
    }
    int slash = path.indexOf('/', SCHEME.length());
    String a = slash < 0 ? path.substring(SCHEME.length()) : path.substring(SCHEME.length(), slash);
    return new java.util.TreeSet<>(java.util.Arrays.asList(a.split(",")));
  }

  /** The signal a long copy checks between buffers. */
  StopSignal stop() {
    return stop;
  }

  /** Where file contents go as bytes ({@code cat}). */
  OutputStream stdout() {
    return braid.stdout();
  }

  /** Where file contents come from ({@code put -}). */
  InputStream stdin() {
    return braid.stdin();
  }

  /** A source of a value that may fail with an {@link IOException}. */
  @FunctionalInterface
  private interface Call<T> {
    T call() throws IOException;
  }

  private static <T> T on(String path, Call<T> call) throws PathFailure {
    try {
      return call.call();
    } catch (PathFailure e) {
      throw e;
    } catch (IOException e) {
      throw new PathFailure(path, e);
    }
  }

  FileAttributes stat(String path) throws PathFailure {
    return on(path, () -> client.stat(path));
  }

  FileAttributes lstat(String path) throws PathFailure {
    return on(path, () -> client.lstat(path));
  }

  /** The path's attributes (a symlink followed), or null if nothing is there. */
  @Nullable FileAttributes statIfExists(String path) throws PathFailure {
    return ifExists(path, () -> client.stat(path));
  }

  /** The path's own attributes (a symlink not followed), or null if nothing is there. */
  @Nullable FileAttributes lstatIfExists(String path) throws PathFailure {
    return ifExists(path, () -> client.lstat(path));
  }

  private static @Nullable FileAttributes ifExists(String path, Call<FileAttributes> call)
      throws PathFailure {
    try {
      return call.call();
    } catch (IOException e) {
      Status s = StatusExceptions.statusOf(e);
      if (s == Status.NOT_FOUND || s == Status.NOT_DIRECTORY) {
        return null;
      }
      throw new PathFailure(path, e);
    }
  }

  /** Whether {@code path} exists; other failures than NOT_FOUND are thrown. */
  boolean exists(String path) throws PathFailure {
    return on(path, () -> client.exists(path));
  }

  List<DirectoryEntry> list(String path) throws PathFailure {
    return on(path, () -> client.list(path));
  }

  void mkdir(String path) throws PathFailure {
    on(path, () -> client.mkdir(path, DIRECTORY_MODE));
  }

  void mkdirs(String path) throws PathFailure {
    on(path, () -> client.mkdirs(path, DIRECTORY_MODE));
  }

  /** Makes {@code path} and missing parents with {@code mode} (before the umask). */
  void mkdirs(String path, int mode) throws PathFailure {
    on(path, () -> client.mkdirs(path, mode));
  }

  void delete(String path, boolean recursive) throws PathFailure {
    on(path, () -> client.delete(path, recursive));
  }

  /** Hadoop rename: into {@code destination} if it is a directory; never replaces a file. */
  String move(String source, String destination) throws PathFailure {
    try {
      return client.rename(source, destination, RenameSemantics.HADOOP, false, false);
    } catch (IOException e) {
      if (StatusExceptions.statusOf(e) != Status.ALREADY_EXISTS) {
        throw new PathFailure(source, e);
      }
      // The name in the way is named, as mv(1) does: inside a directory destination, its entry.
      String inTheWay = destination;
      try {
        if (client.stat(destination).isDirectory()) {
          inTheWay = FsNamespaceCommands.child(destination, FsNamespaceCommands.name(source));
        }
      } catch (IOException ignored) {
        // the destination itself, then
      }
      throw new PathFailure(inTheWay, e);
    }
  }

  /** POSIX rename of {@code source} onto {@code destination}, replacing it unless told not to. */
  void replace(String source, String destination, boolean noReplace) throws PathFailure {
    on(
        destination,
        () -> client.rename(source, destination, RenameSemantics.POSIX, noReplace, false));
  }

  FileChecksum checksum(String path) throws PathFailure {
    return on(path, () -> client.checksum(path));
  }

  FileSystemStats statFs() throws PathFailure {
    return on("/", client::statFs);
  }

  /** Creates an empty file, its parent directory already there (as touch(1)). */
  void createEmpty(String path) throws PathFailure {
    try {
      client.create(path, CreateOptions.defaults().withCreateParents(false)).close();
    } catch (IOException e) {
      throw new PathFailure(path, e);
    }
  }

  /** Sets the access and modification times to now. */
  void touch(String path) throws PathFailure {
    long now = java.time.Instant.now().toEpochMilli() * 1_000_000L;
    on(path, () -> client.setTimes(path, now, now));
  }

  /** Sets the modification and access times, in nanoseconds since the epoch. */
  void setTimes(String path, long mtimeNanos, long atimeNanos) throws PathFailure {
    on(path, () -> client.setTimes(path, mtimeNanos, atimeNanos));
  }

  void setReplication(String path, int replication) throws PathFailure {
    on(path, () -> client.setReplication(path, replication));
  }

  void setPermission(String path, int mode) throws PathFailure {
    on(path, () -> client.setPermission(path, mode));
  }

  void setOwner(String path, @Nullable String user, @Nullable String group) throws PathFailure {
    on(path, () -> client.setOwner(path, user, group));
  }

  /** Something done to one inode of a tree, given its attributes. */
  @FunctionalInterface
  interface TreeWork {
    void run(String path, FileAttributes attributes) throws PathFailure;
  }

  /**
   * Runs {@code work} on {@code path} (a symlink followed) and, if {@code recursive} and it is a
   * directory, on everything under it, parents before children; symlinks below it are given as
   * themselves and not followed (chmod -R leaves them alone). A failure below {@code path} is
   * reported and the walk goes on.
   *
   * @throws PathFailure if {@code path} itself failed, or anything under it did
   */
  void tree(String path, boolean recursive, TreeWork work) throws PathFailure {
    FileAttributes top = stat(path);
    work.run(path, top);
    if (!recursive || !top.isDirectory()) {
      return;
    }
    int failures = below(path, work);
    if (failures > 0) {
      throw new PathFailure(path, failures + " failed under it (above)");
    }
  }

  /** {@link #tree} under {@code dir}: each entry, then what is under it (pre-order, as ls -R). */
  private int below(String dir, TreeWork work) throws PathFailure {
    if (stop.isRequested()) {
      throw new PathFailure(dir, "interrupted");
    }
    List<DirectoryEntry> entries;
    try {
      entries = list(dir);
    } catch (PathFailure e) {
      report(e);
      return 1;
    }
    int failures = 0;
    for (DirectoryEntry e : entries) {
      String child = FsNamespaceCommands.child(dir, e.name());
      FileAttributes a;
      try {
        FileAttributes listed = e.attributes();
        a = listed != null ? listed : lstat(child);
        work.run(child, a);
      } catch (PathFailure f) {
        report(f);
        failures++;
        continue;
      }
      if (a.isDirectory()) {
        failures += below(child, work);
      }
    }
    return failures;
  }

  ContentSummary contentSummary(String path) throws PathFailure {
    return on(path, () -> client.contentSummary(path));
  }

  DirectoryLayout layoutPolicy(String path) throws PathFailure {
    return on(path, () -> client.layoutPolicy(path));
  }

  LayoutPolicy setLayoutPolicy(String path, LayoutPolicy policy) throws PathFailure {
    return on(path, () -> client.setLayoutPolicy(path, policy));
  }

  LayoutPolicy clearLayoutPolicy(String path) throws PathFailure {
    return on(path, () -> client.clearLayoutPolicy(path));
  }

  /**
   * Creates {@code path}, replacing a file already there, and opens it to write; a failure names
   * {@code shownAs} (the file the user asked for, when {@code path} is a temporary name for it).
   */
  BraidOutputStream create(String path, String shownAs) throws PathFailure {
    return on(shownAs, () -> client.create(path, CreateOptions.defaults().withOverwrite(true)));
  }

  BraidInputStream open(String path) throws PathFailure {
    return on(path, () -> client.open(path));
  }
}
