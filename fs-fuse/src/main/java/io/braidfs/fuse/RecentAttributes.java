package io.braidfs.fuse;

import io.braidfs.client.FileAttributes;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Attributes the MDS answered to this mount's own changes (create, chmod, chown, utimens, truncate,
 * mkdir, symlink, link), kept for the getattr that libfuse's high-level layer sends right after
 * each of them to fill its reply. Answering that getattr from here halves the MDS calls of {@code
 * tar x}, which makes five such changes per file.
 *
 * <p>An entry is taken once, by a caller of the same uid, and only within the kernel's attribute
 * timeout: the kernel itself would reuse those attributes as long. Any other change the mount makes
 * to the path removes it; a rename removes every entry, since it moves a subtree.
 *
 * <p>Thread-safety: thread-safe.
 */
final class RecentAttributes {
  /** Entries kept before expired ones are pruned; a burst beyond it clears the table. */
  private static final int MAX_ENTRIES = 4096;

  private record Entry(int uid, FileAttributes attributes, long expiresAt) {}

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final long ttlNanos;
  private final LongSupplier clock;

  RecentAttributes(Duration ttl) {
    this(ttl, System::nanoTime);
  }

  RecentAttributes(Duration ttl, LongSupplier nanoClock) {
    this.ttlNanos = ttl.toNanos();
    this.clock = nanoClock;
  }

  /** Remembers what a change by {@code uid} to {@code path} answered. */
  void put(String path, int uid, FileAttributes attributes) {
    if (ttlNanos <= 0) {
      return;
    }
    if (entries.size() >= MAX_ENTRIES) {
      prune();
    }
    entries.put(path, new Entry(uid, attributes, clock.getAsLong() + ttlNanos));
  }

  /**
   * Takes the attributes of {@code path} for {@code uid}, or null if there are none still fresh.
   */
  @Nullable FileAttributes take(String path, int uid) {
    Entry e = entries.get(path);
    if (e == null || e.uid != uid || !entries.remove(path, e)) {
      return null;
    }
    return clock.getAsLong() - e.expiresAt < 0 ? e.attributes : null;
  }

  /** The inode id of {@code path} if an entry holds it, else 0; the entry stays. */
  long inodeOf(String path) {
    Entry e = entries.get(path);
    return e != null && clock.getAsLong() - e.expiresAt < 0 ? e.attributes.inodeId() : 0;
  }

  /** Drops what is known of {@code path}: the mount changed it in a way no entry shows. */
  void forget(String path) {
    entries.remove(path);
  }

  /** Drops everything (a rename moved a subtree). */
  void forgetAll() {
    entries.clear();
  }

  int size() {
    return entries.size();
  }

  private void prune() {
    long now = clock.getAsLong();
    entries.values().removeIf(e -> now - e.expiresAt >= 0);
    if (entries.size() >= MAX_ENTRIES) {
      entries.clear();
    }
  }
}
