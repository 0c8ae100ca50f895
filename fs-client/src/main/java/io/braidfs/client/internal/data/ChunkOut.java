package io.braidfs.client.internal.data;

import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkState;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One chunk a {@link StripedWriter} writes to: its current version and replica chain, the length
 * written so far, and the writes sent but not yet acknowledged (kept, with their bytes, so that
 * they can be sent again after a failed replica is replaced).
 *
 * <p>Thread-safety: the writer's thread owns everything except {@link #failure} and each {@link
 * Pending}'s completion, which event loops set.
 */
final class ChunkOut {
  ChunkLocation location;
  long length;
  boolean reported = true;
  boolean synced = true;
  int replacements;
  int tokenRefreshes;

  /** Some write to this chunk was acknowledged by every replica (set on event loops). */
  volatile boolean everAcked;

  /** Servers whose replica of this chunk failed: never chosen again as its replacement. */
  final Set<Integer> failedServers = new TreeSet<>();

  final ArrayDeque<Pending> pending = new ArrayDeque<>();
  final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

  ChunkOut(ChunkLocation location) {
    this.location = location;
    this.length = location.getLength();
  }

  /** Forgets the acknowledged writes at the head of {@link #pending}, releasing their bytes. */
  void pruneAcked() {
    while (!pending.isEmpty() && pending.peekFirst().acked) {
      pending.pollFirst().data.release();
    }
  }

  ChunkState state() {
    return ChunkState.newBuilder()
        .setId(location.getId())
        .setVersion(location.getVersion())
        .setLength(length)
        .build();
  }

  /** One write sent to the chain and not yet known to be acknowledged by every replica. */
  static final class Pending {
    final long offset;
    final ByteBuf data;
    final int[] crcs;
    volatile CompletableFuture<?> sent = CompletableFuture.completedFuture(null);
    volatile boolean acked;

    Pending(long offset, ByteBuf data, int[] crcs) {
      this.offset = offset;
      this.data = data;
      this.crcs = crcs;
    }
  }
}
