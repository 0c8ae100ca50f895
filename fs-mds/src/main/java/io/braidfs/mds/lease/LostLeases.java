package io.braidfs.mds.lease;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The leases clients lost to recovery and have not been told about yet, for {@link
 * LeaseManager#renew}. A loss is reported once; one nobody asks about is forgotten after a time
 * limit, so the losses of clients that died do not pile up.
 *
 * <p>Thread-safety: not thread-safe; {@link LeaseManager} calls it with its lock held.
 */
final class LostLeases {
  /** Client, then file id to when it was lost (monotonic nanoseconds). */
  private final Map<ClientId, Map<Long, Long>> byClient = new HashMap<>();

  /** The same losses in the order they happened, to forget them in that order. */
  private final ArrayDeque<Loss> order = new ArrayDeque<>();

  /** Records that the client lost the file's lease at {@code nowNanos}. */
  void add(ClientId client, long fileId, long nowNanos) {
    byClient.computeIfAbsent(client, c -> new HashMap<>()).put(fileId, nowNanos);
    order.addLast(new Loss(client, fileId, nowNanos));
  }

  /** Forgets a loss the client no longer needs to hear of: it holds the file's lease again. */
  void remove(ClientId client, long fileId) {
    Map<Long, Long> lost = byClient.get(client);
    if (lost != null && lost.remove(fileId) != null && lost.isEmpty()) {
      byClient.remove(client);
    }
  }

  /** The client's losses in ascending file id order, forgotten once returned. */
  List<Long> take(ClientId client) {
    Map<Long, Long> lost = byClient.remove(client);
    List<Long> ids = lost == null ? new ArrayList<>() : new ArrayList<>(lost.keySet());
    ids.sort(null);
    return ids;
  }

  /** Forgets the losses more than {@code maxAgeNanos} old. */
  void forgetOlderThan(long maxAgeNanos, long nowNanos) {
    while (!order.isEmpty() && nowNanos - order.peekFirst().atNanos > maxAgeNanos) {
      Loss loss = order.removeFirst();
      Map<Long, Long> lost = byClient.get(loss.client);
      // Skip entries already reported, or superseded by a later loss of the same file.
      if (lost != null && Objects.equals(lost.get(loss.fileId), loss.atNanos)) {
        lost.remove(loss.fileId);
        if (lost.isEmpty()) {
          byClient.remove(loss.client);
        }
      }
    }
  }

  /** How many losses are waiting to be reported. */
  int size() {
    int n = 0;
    for (Map<Long, Long> lost : byClient.values()) {
      n += lost.size();
    }
    return n;
  }

  private record Loss(ClientId client, long fileId, long atNanos) {}
}
