package io.braidfs.fuse;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidOutputStream;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The mount's state of one open inode, shared by every handle open on it: the one writer (Braid
 * gives a file's write lease to one stream, so all writing handles of an inode share it), whether
 * it holds bytes readers have not been shown, and how many handles use it.
 *
 * <p>The writer is opened on demand and committed (closed) when the last writing handle is flushed
 * on close(2) or released, and before a truncate: close-to-open, a file closed here is complete for
 * every other client.
 *
 * <p>Thread-safety: guarded by its own monitor; callers synchronize on the instance.
 */
final class OpenFile {
  final long inodeId;

  /** Handles open on the inode; the entry leaves the table at 0. */
  int refs;

  /** Handles open for writing. */
  int writeHandles;

  /** Bumped by a truncate: readers opened before it reopen their stream. */
  int epoch;

  private @Nullable BraidOutputStream out;
  private boolean dirty;

  OpenFile(long inodeId) {
    this.inodeId = inodeId;
  }

  /** The writer, opened through {@code client} at {@code path} if there is none. */
  BraidOutputStream writer(BraidClient client, String path) throws IOException {
    BraidOutputStream o = out;
    if (o == null || o.isClosed()) {
      o = client.openForWrite(path, false);
      out = o;
    }
    return o;
  }

  /** Adopts the writer of a file just created. */
  void adopt(BraidOutputStream created) {
    out = created;
  }

  @Nullable BraidOutputStream currentWriter() {
    return out;
  }

  void wrote() {
    dirty = true;
  }

  /** Makes written bytes visible to readers (hflush) if there are any. */
  void publish() throws IOException {
    BraidOutputStream o = out;
    if (o != null && dirty) {
      o.hflush();
      dirty = false;
    }
  }

  /** Commits the writer, if any: the file is complete and the lease is released. */
  void commit() throws IOException {
    BraidOutputStream o = out;
    out = null;
    dirty = false;
    if (o != null) {
      o.close();
    }
  }

  /** Drops the writer without committing (the client is closing). */
  void abandon() {
    BraidOutputStream o = out;
    out = null;
    if (o != null) {
      o.abort();
    }
  }
}
