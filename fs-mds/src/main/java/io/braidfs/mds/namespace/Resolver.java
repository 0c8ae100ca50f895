package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.path.BraidPath;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.access.Permissions;
import io.braidfs.mds.store.StoreView;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Path resolution: walks components from the root, following symlinks in every intermediate
 * component (at most {@link #MAX_SYMLINK_HOPS}) and in the last one where asked, and checks search
 * permission on every directory it looks a name up in. Error order, as the reference model: a
 * component that is not a directory ({@code NOT_DIRECTORY}), a missing entry ({@code NOT_FOUND}), a
 * symlink loop ({@code TOO_MANY_LINKS}).
 *
 * <p>Thread-safety: thread-safe (stateless but for its permissions).
 */
final class Resolver {
  /** Symlinks followed in one resolution before {@code TOO_MANY_LINKS}, as Linux's ELOOP. */
  static final int MAX_SYMLINK_HOPS = 40;

  /** Where an operation's last component goes: the directory, the name, what is there now. */
  record Slot(Inode dir, String name, @Nullable Inode existing) {}

  private final Permissions permissions;

  Resolver(Permissions permissions) {
    this.permissions = permissions;
  }

  Permissions permissions() {
    return permissions;
  }

  /** The inode at {@code path}; a final symlink is followed when {@code followLast}. */
  Inode resolve(StoreView view, Caller caller, String op, BraidPath path, boolean followLast)
      throws IOException {
    Inode root = Tree.named(view, Tree.ROOT, "the root");
    return walk(view, caller, op, path.toString(), root, path.components(), followLast);
  }

  /**
   * The parent directory of {@code path}'s last component (symlinks in it followed), that name, and
   * the entry there now (not followed).
   *
   * @throws IOException {@code INVALID_ARGUMENT} for the root, which has no parent
   */
  Slot slot(StoreView view, Caller caller, String op, BraidPath path) throws IOException {
    if (path.isRoot()) {
      throw fail(Status.INVALID_ARGUMENT, op + " " + path + ": the root has no parent");
    }
    List<String> comps = path.components();
    Inode root = Tree.named(view, Tree.ROOT, "the root");
    Inode dir =
        walk(view, caller, op, path.toString(), root, comps.subList(0, comps.size() - 1), true);
    return slotIn(view, caller, op, path.toString(), dir, path.name());
  }

  /** The slot for {@code name} in {@code dir}, checking search permission on it. */
  Slot slotIn(StoreView view, Caller caller, String op, String path, Inode dir, String name)
      throws IOException {
    if (!dir.isDirectory()) {
      throw fail(Status.NOT_DIRECTORY, op + " " + path + ": the parent is not a directory");
    }
    permissions.check(caller, op, path, parentOf(path), dir.permission(), Access.SEARCH);
    return new Slot(dir, name, Tree.child(view, dir.id(), name));
  }

  Inode walk(
      StoreView view,
      Caller caller,
      String op,
      String path,
      Inode start,
      List<String> comps,
      boolean followLast)
      throws IOException {
    Inode cur = start;
    Deque<String> todo = new ArrayDeque<>(comps);
    int hops = 0;
    StringBuilder walked = new StringBuilder();
    while (!todo.isEmpty()) {
      String c = todo.poll();
      if (!cur.isDirectory()) {
        throw fail(Status.NOT_DIRECTORY, op + " " + path + ": a component is not a directory");
      }
      if (c.equals(".")) {
        continue;
      }
      if (c.equals("..")) {
        cur = Tree.named(view, cur.record().getParentId(), "the parent of " + cur);
        continue;
      }
      permissions.check(
          caller,
          op,
          path,
          walked.length() == 0 ? "/" : walked.toString(),
          cur.permission(),
          Access.SEARCH);
      Inode next = Tree.child(view, cur.id(), c);
      if (next == null) {
        throw fail(Status.NOT_FOUND, op + " " + path + ": no entry '" + c + "'");
      }
      if (next.isSymlink() && (!todo.isEmpty() || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) {
          throw fail(
              Status.TOO_MANY_LINKS,
              op + " " + path + ": more than " + MAX_SYMLINK_HOPS + " symbolic links");
        }
        String target = next.record().getSymlinkTarget();
        String[] parts = target.split("/");
        for (int i = parts.length - 1; i >= 0; i--) {
          if (!parts[i].isEmpty()) {
            todo.push(parts[i]);
          }
        }
        if (target.startsWith("/")) {
          cur = Tree.named(view, Tree.ROOT, "the root");
          walked.setLength(0);
        }
        continue;
      }
      walked.append('/').append(c);
      cur = next;
    }
    return cur;
  }

  static String parentOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  static IOException fail(Status status, String message) {
    return StatusExceptions.toIOException(status, message);
  }
}
