package io.braidfs.fuse;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link BraidClient} per caller identity. A Braid client states its user and groups once, at
 * connect (ARCHITECTURE section 8), so the mount acts for the calling process's uid and gid by
 * keeping a client for each (uid, gid) pair it meets, made on first use and kept until the mount
 * closes. The clients' umask is 0: the kernel has already applied the caller's umask to the modes
 * FUSE passes.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ClientPool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientPool.class);

  private final BraidConfig config;
  private final Identities ids;
  private final String name;
  private final Map<Key, BraidClient> clients = new ConcurrentHashMap<>();

  /** An identity: uid, primary gid and the supplementary gids (sorted; null: not known). */
  private record Key(int uid, int gid, @Nullable List<Integer> groups) {}

  private volatile boolean closed;

  ClientPool(BraidConfig config, Identities ids, String name) {
    BraidConfig.Builder b = config.toBuilder().set(ClientConfigKeys.UMASK, "000");
    if (!config.isSet(ClientConfigKeys.CREATOR_GROUP)) {
      b.set(ClientConfigKeys.CREATOR_GROUP, true); // the caller's gid, as on a local disk
    }
    if (!config.isSet(ClientConfigKeys.SYNC_ON_CLOSE)) {
      b.set(ClientConfigKeys.SYNC_ON_CLOSE, false); // close(2) does not sync; fsync(2) does
    }
    this.config = b.build();
    this.ids = ids;
    this.name = name;
  }

  Identities identities() {
    return ids;
  }

  /**
   * The client acting as {@code uid} with primary group {@code gid} and the supplementary groups
   * {@code groups} (sorted ids; null if unknown, then the user's groups in /etc/group), connected
   * on first use.
   */
  BraidClient client(int uid, int gid, int @Nullable [] groups) throws IOException {
    Key key = new Key(uid, gid, groups == null ? null : Arrays.stream(groups).boxed().toList());
    BraidClient c = clients.get(key);
    if (c != null) {
      return c;
    }
    synchronized (this) {
      if (closed) {
        throw new IOException(name + ": the mount is closing");
      }
      c = clients.get(key);
      if (c == null) {
        String user = ids.userName(uid);
        List<String> names = groupNames(uid, gid, groups);
        c =
            BraidClient.builder(config)
                .user(user)
                .groups(names)
                .name(name + "-" + user + "-" + Integer.toUnsignedString(gid))
                .build();
        LOG.debug("{}: connected as {} {}", name, user, names);
        clients.put(key, c);
      }
      return c;
    }
  }

  /**
   * The group names of a caller: the primary group first, then the supplementary {@code groups}
   * (null: the user's groups in /etc/group).
   */
  List<String> groupNames(int uid, int gid, int @Nullable [] groups) {
    if (groups == null) {
      return ids.groups(uid, gid);
    }
    Set<String> out = new LinkedHashSet<>();
    out.add(ids.groupName(gid));
    for (int g : groups) {
      out.add(ids.groupName(g));
    }
    return List.copyOf(out);
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (BraidClient c : new ArrayList<>(clients.values())) {
      c.close();
    }
    clients.clear();
  }
}
