package io.braidfs.mds.namespace;

import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.proto.DeletedChunk;
import io.braidfs.mds.store.proto.DeletedChunkList;
import io.braidfs.mds.store.proto.DeletionRecord;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ChunkState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The durable deletion queue: chunks of deleted, overwritten or truncated files whose replicas data
 * servers must remove. A release is a {@link DeletionRecord} written in the same journal record as
 * the deletion itself, so it survives restarts. Each holder is told through its heartbeat response;
 * its next heartbeat acknowledges (a data server applies commands before heartbeating again). Once
 * every holder has acknowledged, or is no longer live (it cleans up through ConfirmChunks when it
 * starts again), the record is removed by a journaled mutation.
 *
 * <p>After a restart nothing is known to be sent, so every holder is told again; deleting a chunk
 * twice is harmless.
 *
 * <p>Thread-safety: not thread-safe; used by the mutation thread (enqueue, heartbeats).
 */
public final class DeletionQueue {
  /** One released chunk: its index, the highest version to delete, and who holds replicas. */
  record Chunk(int index, long version, List<Integer> holders) {}

  /** A queued record and, per holder, whether it was told (false) or acknowledged (true). */
  private static final class Entry {
    final long seq;
    final long inode;
    final List<DeletedChunk> chunks;
    final Set<Integer> untold = new HashSet<>();
    final Set<Integer> told = new HashSet<>();

    Entry(long seq, DeletionRecord record) {
      this.seq = seq;
      this.inode = record.getInodeId();
      this.chunks = record.getChunks().getChunksList();
      for (DeletedChunk c : chunks) {
        untold.addAll(c.getReplicaServerIdsList());
      }
    }
  }

  private final Namespace ns;
  private final TreeMap<Long, Entry> pending = new TreeMap<>();

  DeletionQueue(Namespace ns) {
    this.ns = ns;
  }

  void load() throws IOException {
    pending.clear();
    byte[] cursor = null;
    do {
      ScanPage page = ns.decided.scan(ColumnFamily.DELETIONS, new byte[0], cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        long seq = Keys.readU64(e.key(), 0);
        pending.put(seq, new Entry(seq, Records.decodeDeletion(e.key(), e.value())));
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
  }

  /** Queues {@code chunks} of {@code inode} within mutation {@code m}. */
  void enqueue(Mutation m, long inode, List<Chunk> chunks) {
    DeletedChunkList.Builder list = DeletedChunkList.newBuilder();
    for (Chunk c : chunks) {
      list.addChunks(
          DeletedChunk.newBuilder()
              .setChunkIndex(c.index())
              .setMaxVersion(c.version())
              .addAllReplicaServerIds(c.holders()));
    }
    DeletionRecord record =
        DeletionRecord.newBuilder()
            .setInodeId(inode)
            .setChunks(list)
            .setEnqueueTimeNs(m.nowNs())
            .build();
    long seq = ns.counters.newDeletion(m);
    m.put(ColumnFamily.DELETIONS, Keys.deletion(seq), Records.encode(record));
    m.afterApply(() -> pending.put(seq, new Entry(seq, record)));
  }

  /**
   * The servers that still may be told to delete a replica of chunk {@code index} of {@code inode}
   * (told or not, not yet acknowledged). A new replica must not go there until they have: the
   * deletion names versions up to one the new replica may have too.
   */
  Set<Integer> pendingHolders(long inode, int index) {
    Set<Integer> out = new HashSet<>();
    for (Entry e : pending.values()) {
      if (e.inode != inode) {
        continue;
      }
      for (DeletedChunk c : e.chunks) {
        if (c.getChunkIndex() == index) {
          for (int holder : c.getReplicaServerIdsList()) {
            if (e.untold.contains(holder) || e.told.contains(holder)) {
              out.add(holder);
            }
          }
        }
      }
    }
    return out;
  }

  /** The number of queued records. */
  public int size() {
    return pending.size();
  }

  /**
   * Serves a heartbeat of {@code serverId}: what it was told before is acknowledged, records that
   * need nothing more are removed in {@code m}, and up to {@code max} chunk deletions for it are
   * returned (and count as told once {@code m} is applied).
   */
  public List<ChunkState> heartbeat(Mutation m, int serverId, int max) {
    List<ChunkState> out = new ArrayList<>();
    List<Entry> toldNow = new ArrayList<>();
    List<Long> done = new ArrayList<>();
    Set<Integer> live = new HashSet<>();
    ns.registry.liveServers().forEach(s -> live.add(s.id()));
    for (Map.Entry<Long, Entry> me : pending.entrySet()) {
      Entry e = me.getValue();
      e.told.remove(serverId);
      e.untold.removeIf(holder -> !live.contains(holder));
      e.told.removeIf(holder -> !live.contains(holder));
      if (e.untold.isEmpty() && e.told.isEmpty()) {
        done.add(e.seq);
        continue;
      }
      if (out.size() < max && e.untold.contains(serverId)) {
        for (DeletedChunk c : e.chunks) {
          if (c.getReplicaServerIdsList().contains(serverId)) {
            out.add(
                ChunkState.newBuilder()
                    .setId(
                        ChunkId.newBuilder().setInodeId(e.inode).setChunkIndex(c.getChunkIndex()))
                    .setVersion(c.getMaxVersion())
                    .build());
          }
        }
        toldNow.add(e);
      }
    }
    for (long seq : done) {
      m.delete(ColumnFamily.DELETIONS, Keys.deletion(seq));
    }
    m.afterApply(
        () -> {
          done.forEach(pending::remove);
          for (Entry e : toldNow) {
            if (e.untold.remove(serverId)) {
              e.told.add(serverId);
            }
          }
        });
    return out;
  }
}
