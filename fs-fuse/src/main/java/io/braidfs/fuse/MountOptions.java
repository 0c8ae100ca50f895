package io.braidfs.fuse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The libfuse options of a Braid mount (docs/operations.md, "braid mount"). The defaults:
 *
 * <ul>
 *   <li>{@code big_writes,max_write=131072,max_read=131072}: 128 KiB requests, the most libfuse 2
 *       can carry (its channel buffer is 132 KiB); without big_writes every write is 4 KiB.
 *   <li>{@code attr_timeout=1,entry_timeout=1,negative_timeout=1}: the kernel reuses attributes,
 *       names and the absence of names for one second, as the client's own attribute cache does. A
 *       build looks up many names that do not exist (a compiler searching its include path): with
 *       negative lookups cached, building a source tree on the mount took 45 s instead of 69 s; the
 *       price is that a name created elsewhere may stay hidden for up to the timeout on a mount
 *       that just looked for it ({@code -o negative_timeout=0} restores finding it at once).
 *   <li>{@code auto_cache,ac_attr_timeout=0}: the page cache of a file is kept across opens only
 *       while its size and mtime are unchanged, asked of the MDS at every open (close-to-open).
 *   <li>{@code use_ino}: inode numbers are Braid's (stable, never reused), for tar, find and rsync.
 *   <li>{@code default_permissions}: the kernel checks mode bits against the caller, then the MDS
 *       checks again as the caller's user.
 *   <li>{@code allow_other} when mounted by root (or when /etc/fuse.conf has user_allow_other):
 *       every user of the machine uses the mount as themselves.
 *   <li>{@code auto_unmount}: if the process dies, fusermount removes the mount.
 *   <li>multi-threaded loop (no {@code -s}).
 * </ul>
 *
 * @param attrTimeout attribute and entry timeout of the kernel
 * @param allowOther let other users use the mount
 * @param autoUnmount remove the mount when the process dies
 * @param extra more {@code -o} options, appended verbatim (may be empty)
 * @param debug libfuse's debug output on stderr
 */
public record MountOptions(
    Duration attrTimeout, boolean allowOther, boolean autoUnmount, String extra, boolean debug) {
  /** The largest request libfuse 2 can carry. */
  public static final int MAX_REQUEST = 131072;

  /** The defaults above; allow_other if this process runs as root. */
  public static MountOptions defaults() {
    return new MountOptions(Duration.ofSeconds(1), isRoot(), true, "", false);
  }

  public MountOptions withAllowOther(boolean value) {
    return new MountOptions(attrTimeout, value, autoUnmount, extra, debug);
  }

  public MountOptions withAutoUnmount(boolean value) {
    return new MountOptions(attrTimeout, allowOther, value, extra, debug);
  }

  public MountOptions withExtra(String value) {
    return new MountOptions(attrTimeout, allowOther, autoUnmount, value, debug);
  }

  public MountOptions withAttrTimeout(Duration value) {
    return new MountOptions(value, allowOther, autoUnmount, extra, debug);
  }

  public MountOptions withDebug(boolean value) {
    return new MountOptions(attrTimeout, allowOther, autoUnmount, extra, value);
  }

  /** The libfuse command-line arguments after the mount point. */
  public String[] fuseArgs(String fsName) {
    String t = seconds(attrTimeout);
    List<String> o = new ArrayList<>();
    o.add("fsname=" + fsName);
    o.add("subtype=braid");
    o.add("big_writes");
    o.add("max_write=" + MAX_REQUEST);
    o.add("max_read=" + MAX_REQUEST);
    o.add("attr_timeout=" + t);
    o.add("entry_timeout=" + t);
    o.add("negative_timeout=" + t);
    o.add("auto_cache");
    o.add("ac_attr_timeout=0");
    o.add("use_ino");
    o.add("default_permissions");
    if (allowOther) {
      o.add("allow_other");
    }
    if (autoUnmount) {
      o.add("auto_unmount");
    }
    if (!extra.isBlank()) {
      o.add(extra.strip());
    }
    return new String[] {"-o", String.join(",", o)};
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? Long.toString(ms / 1000) : Double.toString(ms / 1000.0);
  }

  static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }
}
