package io.braidfs.mds.server;

import io.braidfs.common.token.ClientId;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Tells the mutation thread when a call cannot be a retry, so that it skips the retry-cache lookup:
 * for a new call that lookup reads RocksDB for a key that is not there, about a tenth of a create's
 * time on the mutation thread (docs/benchmarks.md).
 *
 * <p>Design. Clients number their calls upwards and a retry reuses its call's id, so a call whose
 * id is above every id of its client in the retry cache is new. Per client this keeps a
 * <em>watermark</em>: an id at or above every retry-cache entry of the client in the view. It is
 * known once a probe found no entry at or above an id of the client: the probe is a one-entry scan
 * of the client's entries from the call's id on, which also finds the call's own entry if it is a
 * retry, so it replaces the lookup. A client without a watermark (first seen, evicted, or with
 * entries above the call, as when its calls are retried out of order after a restart) is probed on
 * each call until one succeeds. Afterwards, a call above the watermark raises it and is new; one at
 * or below is looked up as before. Ids compare unsigned, as their keys do.
 *
 * <p>Why it holds. Entries enter the view only through the mutation thread's own appends (the
 * runner and its sweep), and every call raises its client's watermark before its record is
 * appended, so no entry ever rises above a watermark. The probe reads the view, with the records
 * not yet written, so a dropped watermark is learnt again correctly. A new {@link MutationRunner},
 * as after a restart, starts with none; an MDS that takes over as leader after copying another's
 * journal into its store must start a new runner too, since those entries bypassed this one.
 *
 * <p>Thread-safety: not thread-safe; confined to the mutation thread.
 */
final class CallWatermarks {
  /** Clients remembered; the least recently seen is forgotten beyond it (about 100 bytes each). */
  static final int MAX_CLIENTS = 16_384;

  /** The outcome of {@link #check}. */
  enum Check {
    /** Above the watermark, or the probe found nothing from it on: a new call. */
    NEW,
    /** The probe found this call's entry; {@link #entry()} holds its value. */
    FOUND,
    /** May be a retry: look the entry up. */
    LOOK_UP
  }

  private final StoreView view;
  private final Map<ClientId, long[]> watermarks;
  private byte @Nullable [] entry;

  /** Watermarks over the retry-cache entries of {@code view}, the mutation thread's view. */
  CallWatermarks(StoreView view) {
    this(view, MAX_CLIENTS);
  }

  /** As {@link #CallWatermarks(StoreView)}, remembering at most {@code maxClients} clients. */
  CallWatermarks(StoreView view, int maxClients) {
    this.view = view;
    this.watermarks =
        new LinkedHashMap<>(64, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<ClientId, long[]> eldest) {
            return size() > maxClients;
          }
        };
  }

  /** Whether call {@code callId} of {@code client} is new, and raises the client's watermark. */
  Check check(ClientId client, long callId) throws IOException {
    entry = null;
    long[] mark = watermarks.get(client);
    if (mark != null) {
      if (Long.compareUnsigned(callId, mark[0]) > 0) {
        mark[0] = callId;
        return Check.NEW;
      }
      return Check.LOOK_UP;
    }
    // The first entry of the client at or after this call: its own, a later one, or none.
    byte[] prefix = Keys.retryPrefix(client);
    byte[] startAfter = callId == 0 ? null : Keys.retry(client, callId - 1);
    ScanPage page = view.scan(ColumnFamily.RETRY, prefix, startAfter, 1);
    if (page.entries().isEmpty()) {
      watermarks.put(client, new long[] {callId});
      return Check.NEW;
    }
    ScanPage.Entry first = page.entries().get(0);
    if (Keys.retryCall(first.key()) == callId) {
      entry = first.value();
      return Check.FOUND;
    }
    return Check.NEW; // a later call has an entry, so no watermark yet; this one has none
  }

  /** The entry the last {@link #check} found ({@link Check#FOUND}), else null. */
  byte @Nullable [] entry() {
    return entry;
  }

  /** Clients with a watermark now. */
  int size() {
    return watermarks.size();
  }
}
