package io.braidfs.mds.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Which chunks each data server should hold, by the chunk records as applied: the reverse of the
 * records' replica lists, kept in memory (built when the namespace loads, then updated by every
 * applied mutation that writes a chunk record). It answers what a full chunk report should contain,
 * what a dead server held, and whether a draining server still holds anything needed, without
 * scanning the store.
 *
 * <p>Thread-safety: thread-safe; one lock, no I/O under it.
 */
public final class HolderIndex {
  /** A chunk's recorded holders and when its record last changed. */
  private record Entry(int[] holders, long changedNanos) {}

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<ChunkRef, Entry> chunks = new HashMap<>();

  @GuardedBy("lock")
  private final Map<Integer, Set<ChunkRef>> byServer = new HashMap<>();

  private volatile Consumer<ChunkRef> onGone = chunk -> {};

  /** Tells {@code listener} of every chunk whose record goes (after the index forgot it). */
  public void onGone(Consumer<ChunkRef> listener) {
    this.onGone = listener;
  }

  /**
   * Records that {@code chunk}'s record now names {@code holders} (empty: the record is gone), as
   * of {@code nowNanos}.
   */
  public void update(ChunkRef chunk, List<Integer> holders, long nowNanos) {
    if (holders.isEmpty()) {
      forget(chunk);
      onGone.accept(chunk);
      return;
    }
    synchronized (lock) {
      unlink(chunk, chunks.get(chunk));
      int[] ids = holders.stream().mapToInt(Integer::intValue).toArray();
      chunks.put(chunk, new Entry(ids, nowNanos));
      for (int s : ids) {
        byServer.computeIfAbsent(s, k -> new HashSet<>()).add(chunk);
      }
    }
  }

  private void forget(ChunkRef chunk) {
    synchronized (lock) {
      unlink(chunk, chunks.remove(chunk));
    }
  }

  @GuardedBy("lock")
  private void unlink(ChunkRef chunk, @Nullable Entry old) {
    if (old != null) {
      for (int s : old.holders()) {
        Set<ChunkRef> held = byServer.get(s);
        if (held != null && held.remove(chunk) && held.isEmpty()) {
          byServer.remove(s);
        }
      }
    }
  }

  /** The chunks whose records name {@code serverId}. */
  public List<ChunkRef> chunksOf(int serverId) {
    synchronized (lock) {
      Set<ChunkRef> held = byServer.get(serverId);
      return held == null ? List.of() : List.copyOf(held);
    }
  }

  /** Whether any chunk record names {@code serverId}. */
  public boolean holdsAny(int serverId) {
    synchronized (lock) {
      return byServer.containsKey(serverId);
    }
  }

  /** The servers named by any chunk record. */
  public Set<Integer> servers() {
    synchronized (lock) {
      return Set.copyOf(byServer.keySet());
    }
  }

  /** When {@code chunk}'s record last changed ({@code nanoTime}), or {@code Long.MIN_VALUE}. */
  public long changedNanos(ChunkRef chunk) {
    synchronized (lock) {
      Entry e = chunks.get(chunk);
      return e == null ? Long.MIN_VALUE : e.changedNanos();
    }
  }
}
