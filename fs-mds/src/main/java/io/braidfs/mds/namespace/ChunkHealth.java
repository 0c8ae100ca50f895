package io.braidfs.mds.namespace;

import io.braidfs.mds.cluster.AdminState;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.cluster.ReplicaMap;
import io.braidfs.proto.FileHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A chunk's recorded holders sorted by whether their replica counts, the one judgement that repair,
 * fsck and the locations handed to readers share.
 *
 * <ul>
 *   <li><b>good</b>: counts towards the file's replication: on a live server in service, on a
 *       server in maintenance (live or not), or on a server not registered yet while the MDS has
 *       just started ({@link DataServerRegistry#mayStillRegister}), and not known bad; live ones
 *       first.
 *   <li><b>readable</b>: can be read now: on a live server and not known bad; the good ones first,
 *       then those on draining (decommissioning) servers. Copies are made from these.
 *   <li>every other holder is dead (and not in maintenance), unknown to the MDS, or holds a replica
 *       known corrupt or missing.
 * </ul>
 *
 * <p>Thread-safety: immutable.
 *
 * @param good holders whose replica counts: live ones in recorded order, then those away
 * @param readable holders a reader or a copy can use now, good ones first
 * @param corruptLive live holders whose replica is known corrupt
 */
public record ChunkHealth(List<Integer> good, List<Integer> readable, List<Integer> corruptLive) {

  /** Classifies the recorded {@code holders} of {@code chunk}. */
  public static ChunkHealth of(
      DataServerRegistry registry,
      ReplicaMap replicas,
      ChunkRef chunk,
      long version,
      List<Integer> holders) {
    Map<Integer, ReplicaMap.Bad> bad = replicas.badReplicas(chunk, version);
    List<Integer> goodAway = new ArrayList<>(0);
    List<Integer> good = new ArrayList<>(holders.size());
    List<Integer> readable = new ArrayList<>(holders.size());
    List<Integer> draining = new ArrayList<>(0);
    List<Integer> corrupt = new ArrayList<>(0);
    for (int id : holders) {
      DataServer s = registry.server(id);
      boolean live = s != null && s.live();
      AdminState state = registry.state(id);
      ReplicaMap.Bad why = bad.get(id);
      if (why != null) {
        if (live && why == ReplicaMap.Bad.CORRUPT) {
          corrupt.add(id);
        }
        continue;
      }
      if (state.countsReplicas() && live) {
        good.add(id);
      } else if (state == AdminState.IN_MAINTENANCE || (s == null && registry.mayStillRegister())) {
        // Away for a planned restart, or not registered yet so soon after the MDS started: it
        // counts, after the live ones (which are kept first when holders are trimmed).
        goodAway.add(id);
      }
      if (live) {
        (state.countsReplicas() ? readable : draining).add(id);
      }
    }
    readable.addAll(draining);
    good.addAll(goodAway);
    return new ChunkHealth(List.copyOf(good), List.copyOf(readable), List.copyOf(corrupt));
  }

  /** How whole the chunk is for a file of replication {@code want}. */
  public FileHealth health(int want) {
    if (readable.isEmpty()) {
      return corruptLive.isEmpty() ? FileHealth.MISSING : FileHealth.CORRUPT;
    }
    return good.size() >= want ? FileHealth.HEALTHY : FileHealth.UNDER_REPLICATED;
  }

  /** The worse of two healths (missing, corrupt, under-replicated, healthy). */
  public static FileHealth worse(FileHealth a, FileHealth b) {
    return rank(a) >= rank(b) ? a : b;
  }

  private static int rank(FileHealth h) {
    return switch (h) {
      case MISSING -> 3;
      case CORRUPT -> 2;
      case UNDER_REPLICATED -> 1;
      default -> 0;
    };
  }
}
