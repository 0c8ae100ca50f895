package io.braidfs.fuse;

import io.braidfs.client.AttrChange;
import io.braidfs.client.BraidClient;
import io.braidfs.client.FileAttributes;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Attribute write-behind for one inode of {@link OpenFile}, a file this mount created and writes:
 * its attributes as the mount made them, and the changes held back (chmod and chown), merged into
 * one SetAttr by inode id until they are sent, then applied in the background, one after another,
 * in the order they were sent.
 *
 * <p>Thread-safety: not thread-safe; its {@link OpenFile} calls it only under the inode's lock.
 */
final class AttributeWriteBehind {
  private final long inodeId;
  private final Executor executor;

  /** The file's attributes as this mount made them, or null. */
  private @Nullable FileAttributes known;

  /** When {@link #known} was last set ({@link System#nanoTime()}). */
  private long knownAt;

  /** Changes not sent yet, merged, with the client of their caller; or null. */
  private AttrChange.@Nullable Builder unsent;

  private @Nullable BraidClient unsentBy;
  private long unsentSince;

  /** The change sent last; never null. */
  private CompletableFuture<?> sent = CompletableFuture.completedFuture(null);

  /**
   * @param executor where the changes are sent
   */
  AttributeWriteBehind(long inodeId, Executor executor) {
    this.inodeId = inodeId;
    this.executor = executor;
  }

  /** The file's attributes are {@code a} now (null: unknown). */
  void know(@Nullable FileAttributes a) {
    known = a;
    knownAt = System.nanoTime();
  }

  /** The file's attributes are no longer known (its writer is committed). */
  void forget() {
    known = null;
  }

  /** The attributes known, if set within the last {@code maxAgeNanos}, else null. */
  @Nullable FileAttributes known(long maxAgeNanos) {
    return System.nanoTime() - knownAt < maxAgeNanos ? known : null;
  }

  /**
   * Holds back {@code change}, made by {@code client}, merged with those before it; a change by
   * another caller sends those first.
   */
  void add(BraidClient client, AttrChange change) {
    if (unsent != null && unsentBy != client) {
      send();
    }
    AttrChange.Builder u = unsent;
    if (u == null) {
      u = AttrChange.builder();
      unsent = u;
      unsentBy = client;
      unsentSince = System.nanoTime();
    }
    u.merge(change);
  }

  /** Sends the changes held back if they are older than {@code maxAgeNanos}. */
  void sendIfOlder(long maxAgeNanos) {
    if (unsent != null && System.nanoTime() - unsentSince >= maxAgeNanos) {
      send();
    }
  }

  /** Sends the changes held back, if any, in the background, after those sent before. */
  void send() {
    AttrChange.Builder u = unsent;
    BraidClient c = unsentBy;
    unsent = null;
    unsentBy = null;
    if (u == null || c == null) {
      return;
    }
    AttrChange req = u.build();
    sent =
        sent.thenRunAsync(
            () -> {
              try {
                c.setAttr(inodeId, req);
              } catch (IOException e) {
                throw new CompletionException(e);
              }
            },
            executor);
  }

  /** Drops what is known and the changes held back, unsent (the client is closing). */
  void drop() {
    known = null;
    unsent = null;
    unsentBy = null;
  }

  /** The change sent last, completed when it is applied or has failed; see {@link #settle}. */
  CompletableFuture<?> lastSent() {
    return sent;
  }

  /** Waits for {@code sent} ({@link #lastSent}), leaving a failure for {@link #await} to report. */
  static void settle(CompletableFuture<?> sent) {
    try {
      sent.handle((r, e) -> null).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // handle() completes normally
    }
  }

  /**
   * Waits until the changes sent are applied.
   *
   * @throws IOException the first change's failure, reported once
   */
  void await() throws IOException {
    CompletableFuture<?> s = sent;
    sent = CompletableFuture.completedFuture(null);
    try {
      s.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for attribute changes");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }
}
