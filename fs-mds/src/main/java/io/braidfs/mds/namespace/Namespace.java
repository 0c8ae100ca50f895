package io.braidfs.mds.namespace;

import com.google.protobuf.ByteString;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.security.Security;
import io.braidfs.common.token.AccessRequest;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.common.token.TokenKeys;
import io.braidfs.common.token.TokenVerifier;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Acls;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.access.Permissions;
import io.braidfs.mds.cluster.ChunkPlacement;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.cluster.HolderIndex;
import io.braidfs.mds.cluster.ReplicaLocations;
import io.braidfs.mds.cluster.ReplicaMap;
import io.braidfs.mds.lease.LeaseManager;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.AclEntryRecord;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.mds.store.proto.OpenForWrite;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.ReplicaLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The state and building blocks shared by the namespace operations ({@link NamespaceReads}, {@link
 * NamespaceWrites}, {@link FileWrites}): the store, permissions, counters, leases, placement and
 * token signing, and the tree edits every mutation is made of (new inodes, unlinking, chunk release
 * into the deletion queue).
 *
 * <p>Why it is long: it is the context every namespace operation shares, so it gathers the building
 * blocks of all of them: start-up, tree edits, chunk placement and locations, the replication
 * hand-off and tokens. It could be split cleanly: allocating chunk sets and answering their
 * locations ({@code allocateSet}, {@code chunkSet}, {@code locationFor}; about 150 lines) would
 * make a class of its own, as would signing and checking tokens (about 60 lines).
 *
 * <p>Thread-safety: the edit methods take a {@link Mutation} and run on the mutation thread only;
 * the rest is thread-safe.
 */
public final class Namespace {
  static final byte[] CLUSTER_ID = Keys.meta("cluster-id");

  /** Every chunk index a whole-file token covers. */
  static final long ALL_CHUNKS = 0xFFFF_FFFFL;

  final String id;

  /** The store, for reads on any thread: what the journal wrote. */
  final StoreView store;

  /** What the mutation thread reads: the store with every record appended, written or not. */
  final StoreView decided;

  final Clock clock;
  final Resolver resolver;
  final Permissions permissions;
  final Counters counters = new Counters();
  final LeaseManager leases;
  final DataServerRegistry registry;
  final ChunkPlacement placement;
  private final ReplicaLocations replicaLocations = new ReplicaLocations();
  final DeletionQueue deletions;
  final ReplicaMap replicaMap = new ReplicaMap();
  final HolderIndex holderIndex = new HolderIndex();
  final ChunkReports reports = new ChunkReports(this);
  final LayoutRecord defaultLayout;
  final int listPage;
  final long tokenLifetimeMs;
  final String superuser;
  final String supergroup;

  private volatile LongConsumer replicationListener = inode -> {};

  /** Files open for writing whose replication changed (mutation thread only; not durable). */
  private final Set<Long> replicateAtClose = new HashSet<>();

  /** The servers named as holders in chunk records when the namespace was loaded. */
  private volatile Set<Integer> holdersAtLoad = Set.of();

  private final SigningKeyRing signingKeys;
  private final DelegationTokens delegationTokens;
  private volatile String clusterId = "";

  /** The leader epoch this namespace serves under: 1 for a lone MDS, ZooKeeper's for HA. */
  private volatile long epoch = 1;

  /**
   * A namespace over {@code store} with the settings of {@code config}; {@link #load} must run
   * before any operation.
   *
   * @param store the store, read by read-only operations on any thread
   * @param decided what mutations read: the store as the journal's appended records leave it
   *     ({@link io.braidfs.mds.journal.Journal#view()})
   */
  public Namespace(
      String id,
      StoreView store,
      StoreView decided,
      BraidConfig config,
      Clock clock,
      LeaseManager leases,
      DataServerRegistry registry,
      ChunkPlacement placement) {
    this.id = id;
    this.store = store;
    this.decided = decided;
    this.clock = clock;
    this.permissions = Permissions.from(config);
    this.resolver = new Resolver(permissions);
    this.leases = leases;
    this.registry = registry;
    this.placement = placement;
    this.deletions = new DeletionQueue(this);
    holderIndex.onGone(replicaMap::forgetChunk); // no bad marks outlive their chunk
    Layout layout =
        Layout.of(
            (int) config.get(NamespaceConfigKeys.STRIPE_UNIT).toBytes(),
            config.get(NamespaceConfigKeys.STRIPE_WIDTH),
            config.get(NamespaceConfigKeys.CHUNK_SIZE).toBytes(),
            config.get(NamespaceConfigKeys.REPLICATION));
    this.defaultLayout = Attrs.record(layout);
    this.listPage = config.get(NamespaceConfigKeys.LIST_PAGE);
    this.tokenLifetimeMs = config.get(NamespaceConfigKeys.TOKEN_LIFETIME).toMillis();
    this.signingKeys =
        new SigningKeyRing(
            id, config.get(NamespaceConfigKeys.TOKEN_KEY_INTERVAL).toMillis(), tokenLifetimeMs);
    this.delegationTokens =
        new DelegationTokens(
            id,
            config.get(NamespaceConfigKeys.DELEGATION_RENEW_INTERVAL).toMillis(),
            config.get(NamespaceConfigKeys.DELEGATION_MAX_LIFETIME).toMillis(),
            config.get(NamespaceConfigKeys.DELEGATION_KEY_INTERVAL).toMillis(),
            Security.serviceUserSet(config),
            clock::currentTimeMillis);
    String su = permissions.superuser();
    this.superuser = su.isEmpty() ? "root" : su;
    String sg = permissions.supergroup();
    this.supergroup = sg.isEmpty() ? superuser : sg;
  }

  // ---- start-up ---------------------------------------------------------------------------------

  /** The cluster id {@code store} was formatted with, or empty if it is not formatted. */
  public static String storedClusterId(StoreView store) throws IOException {
    byte[] cid = store.get(ColumnFamily.META, CLUSTER_ID);
    return cid == null ? "" : new String(cid, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Whether the store holds a formatted namespace (a root directory). */
  public boolean isFormatted() throws IOException {
    return Tree.find(store, Tree.ROOT) != null;
  }

  /**
   * The writes that format an empty store: the root (owned by the superuser, mode 0755), the
   * counters, a cluster id, the token signing keys and the delegation keys.
   */
  public Mutation format() {
    Mutation m = new Mutation(decided, nowNs());
    long now = m.nowNs();
    m.putInode(
        Tree.ROOT,
        InodeRecord.newBuilder()
            .setType(InodeType.INODE_TYPE_DIRECTORY)
            .setMode(0755)
            .setUser(superuser)
            .setGroup(supergroup)
            .setNlink(2)
            .setParentId(Tree.ROOT)
            .setAtimeNs(now)
            .setMtimeNs(now)
            .setCtimeNs(now)
            .build());
    counters.format(m);
    m.put(
        ColumnFamily.META,
        CLUSTER_ID,
        ("braid-" + UUID.randomUUID()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    signingKeys.format(m);
    delegationTokens.format(m);
    return m;
  }

  /**
   * Loads counters, the cluster id, the signing key and the deletion queue, and re-creates a lease
   * for every file open for writing (with a fresh soft limit, so its writer can renew or a recovery
   * can run).
   */
  public void load() throws IOException {
    counters.load(decided);
    byte[] cid = decided.get(ColumnFamily.META, CLUSTER_ID);
    if (cid == null) {
      throw Resolver.fail(Status.INTERNAL, id + ": the namespace is not formatted");
    }
    clusterId = new String(cid, java.nio.charset.StandardCharsets.UTF_8);
    signingKeys.load(decided);
    delegationTokens.load(decided);
    deletions.load();
    byte[] cursor = null;
    do {
      ScanPage page = decided.scan(ColumnFamily.INODES, new byte[0], cursor, 4096);
      for (ScanPage.Entry e : page.entries()) {
        InodeRecord r = Records.decodeInode(e.key(), e.value());
        if (r.hasOpenForWrite()) {
          OpenForWrite w = r.getOpenForWrite();
          leases.restore(
              Keys.inodeOf(e.key()),
              io.braidfs.mds.lease.ClientId.of(w.getWriterClientId().toByteArray()),
              w.getClientName());
        }
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    // Which server should hold what; the start-up grace may end once every server named here has
    // reported its replicas.
    long now = clock.nanoTime();
    cursor = null;
    do {
      ScanPage page = decided.scan(ColumnFamily.CHUNKS, new byte[0], cursor, 4096);
      for (ScanPage.Entry e : page.entries()) {
        holderIndex.update(
            new ChunkRef(Keys.chunkInode(e.key()), Keys.chunkIndex(e.key())),
            Records.decodeChunk(e.key(), e.value()).getReplicaServerIdsList(),
            now);
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    holdersAtLoad = holderIndex.servers();
  }

  /** The servers named as holders in chunk records when the namespace was loaded. */
  public Set<Integer> holdersAtLoad() {
    return holdersAtLoad;
  }

  /** The store as written (what read-only operations see). */
  public StoreView store() {
    return store;
  }

  /** The store as the journal's appended records leave it (what mutations see). */
  public StoreView decided() {
    return decided;
  }

  /** Which chunks each data server should hold, by the chunk records as applied. */
  public HolderIndex holderIndex() {
    return holderIndex;
  }

  /** What the data servers report holding, and the replicas known bad. */
  public ReplicaMap replicaMap() {
    return replicaMap;
  }

  /**
   * Sets the leader epoch that tokens and commands to data servers carry; called once, before the
   * namespace serves.
   */
  public void setEpoch(long epoch) {
    this.epoch = epoch;
  }

  /** The leader epoch tokens and commands to data servers carry. */
  public long epoch() {
    return epoch;
  }

  /** The cluster id fixed at format. */
  public String clusterId() {
    return clusterId;
  }

  /** The keys tokens are signed with. */
  public TokenKeys tokenKeys() {
    return signingKeys.keys();
  }

  /** The signing keys data servers verify tokens with (secret: never log the message). */
  public io.braidfs.proto.SigningKeys signingKeys() {
    return signingKeys.ring();
  }

  /** Delegation tokens: issue, renew, cancel, and the passwords of live ones. */
  public DelegationTokens delegationTokens() {
    return delegationTokens;
  }

  /**
   * Rotates the token signing keys in {@code m} if they are due (the leader's housekeeping).
   *
   * @return whether {@code m} holds a rotation to journal
   */
  public boolean rotateSigningKeysIfDue(Mutation m) {
    return signingKeys.rotateIfDue(m);
  }

  /** The data servers this namespace places chunks on and sums for StatFs. */
  public DataServerRegistry registry() {
    return registry;
  }

  /** The durable deletion queue. */
  public DeletionQueue deletions() {
    return deletions;
  }

  /** Reloads the counters after a mutation was abandoned before reaching the journal. */
  public void abandoned() throws IOException {
    counters.load(decided);
    delegationTokens.abandoned(decided);
  }

  /** A new mutation stamped with the current time. */
  public Mutation newMutation() {
    return new Mutation(decided, nowNs(), holderIndex, clock);
  }

  long nowNs() {
    return clock.currentTimeMillis() * 1_000_000L;
  }

  /** The number of inodes, root included. */
  public long inodeCount() {
    return counters.inodeCount();
  }

  // ---- tree edits -------------------------------------------------------------------------------

  /**
   * A new inode record of {@code type} owned by the caller, stamped with the mutation's time. Its
   * group is {@code group} (one of the caller's: Linux's rule, the creator's group) or, when empty
   * or the parent has the set-group-id bit, the parent's (BSD's and HDFS's rule); a directory made
   * in a set-group-id directory inherits the bit, as on Linux.
   *
   * @throws IOException PERMISSION_DENIED if {@code group} is not one of the caller's groups
   */
  InodeRecord.Builder newRecord(
      Mutation m, Caller caller, InodeType type, int mode, Inode parent, String group)
      throws IOException {
    long now = m.nowNs();
    boolean setgidParent = (parent.record().getMode() & 02000) != 0;
    String g = parent.record().getGroup();
    if (!setgidParent && !group.isEmpty() && !group.equals(g)) {
      if (!caller.groups().contains(group) && !permissions.isSuperuser(caller)) {
        throw Resolver.fail(
            Status.PERMISSION_DENIED,
            "create: group " + group + " is not one of " + caller.user() + "'s groups");
      }
      g = group;
    }
    int bits = mode & 07777;
    if (setgidParent && type == InodeType.INODE_TYPE_DIRECTORY) {
      bits |= 02000;
    }
    List<AclEntryRecord> acl = List.of();
    if (parent.record().getAclCount() > 0 && type != InodeType.INODE_TYPE_SYMLINK) {
      // A default ACL: the child's ACL is inherited from it, limited by the mode (Acls.inherit).
      Acls.Stored inherited =
          Acls.inherit(
              AclRecords.fromRecords(parent.record().getAclList()),
              bits,
              type == InodeType.INODE_TYPE_DIRECTORY);
      if (inherited != null) {
        bits = inherited.mode();
        acl = AclRecords.toRecords(inherited.entries());
      }
    }
    return InodeRecord.newBuilder()
        .setType(type)
        .setMode(bits)
        .addAllAcl(acl)
        .setUser(caller.user())
        .setGroup(g)
        .setAtimeNs(now)
        .setMtimeNs(now)
        .setCtimeNs(now);
  }

  /** Adds {@code child} as {@code name} in {@code dir}, touching the directory. */
  Inode link(Mutation m, Inode dir, String name, Inode child) throws IOException {
    m.putEntry(dir.id(), name, child);
    Inode fresh = Tree.named(m, dir.id(), "directory");
    InodeRecord.Builder d = fresh.record().toBuilder().setMtimeNs(m.nowNs()).setCtimeNs(m.nowNs());
    if (child.isDirectory()) {
      d.setNlink(d.getNlink() + 1);
    }
    Inode updated = fresh.with(d.build());
    m.putInode(updated);
    return updated;
  }

  /** Removes the entry {@code name} (naming {@code child}) from {@code dir}, touching the dir. */
  Inode unlinkEntry(Mutation m, Inode dir, String name, Inode child) throws IOException {
    m.deleteEntry(dir.id(), name);
    Inode fresh = Tree.named(m, dir.id(), "directory");
    InodeRecord.Builder d = fresh.record().toBuilder().setMtimeNs(m.nowNs()).setCtimeNs(m.nowNs());
    if (child.isDirectory()) {
      d.setNlink(d.getNlink() - 1);
    }
    Inode updated = fresh.with(d.build());
    m.putInode(updated);
    return updated;
  }

  /** Creates a directory {@code name} in {@code parent} with {@code group} (see newRecord). */
  Inode mkdirIn(Mutation m, Caller caller, Inode parent, String name, int mode, String group)
      throws IOException {
    long childId = counters.newInode(m);
    Inode dir =
        new Inode(
            childId,
            newRecord(m, caller, InodeType.INODE_TYPE_DIRECTORY, mode, parent, group)
                .setNlink(2)
                .setParentId(parent.id())
                .build());
    m.putInode(dir);
    link(m, parent, name, dir);
    return dir;
  }

  /**
   * Drops one link to a non-directory {@code inode}; with its last link the inode goes, with its
   * xattrs and chunks (into the deletion queue) and lease.
   */
  void dropLink(Mutation m, Inode inode) throws IOException {
    Inode fresh = Tree.named(m, inode.id(), "link target");
    int nlink = fresh.record().getNlink();
    if (nlink > 1) {
      m.putInode(
          fresh.with(fresh.record().toBuilder().setNlink(nlink - 1).setCtimeNs(m.nowNs()).build()));
      return;
    }
    removeInode(m, fresh);
  }

  /** Removes {@code inode} itself (its entries are gone already), with xattrs and chunks. */
  void removeInode(Mutation m, Inode inode) throws IOException {
    m.delete(ColumnFamily.INODES, Keys.inode(inode.id()));
    counters.inodeRemoved(m);
    deleteAll(m, ColumnFamily.XATTRS, Keys.xattrPrefix(inode.id()));
    if (inode.isFile()) {
      releaseChunks(m, inode.id(), 0);
      m.afterApply(() -> forgetLease(inode.id()));
    }
  }

  private void forgetLease(long fileId) {
    leases
        .get(fileId)
        .ifPresent(
            l -> {
              try {
                leases.release(fileId, l.holder());
              } catch (IOException e) {
                // The lease is being recovered; recovery finds the inode gone and completes.
                leases.completeRecovery(fileId);
              }
            });
  }

  /**
   * Deletes the chunk records of {@code inode} from index {@code fromIndex} on and queues their
   * replicas for deletion.
   */
  void releaseChunks(Mutation m, long inode, long fromIndex) throws IOException {
    List<DeletionQueue.Chunk> gone = new ArrayList<>();
    byte[] prefix = Keys.chunkPrefix(inode);
    byte[] cursor = fromIndex == 0 ? null : Keys.chunk(inode, (int) fromIndex - 1);
    do {
      ScanPage page = m.scan(ColumnFamily.CHUNKS, prefix, cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        ChunkRecord c = Records.decodeChunk(e.key(), e.value());
        m.delete(ColumnFamily.CHUNKS, e.key());
        gone.add(
            new DeletionQueue.Chunk(
                Keys.chunkIndex(e.key()), c.getVersion(), c.getReplicaServerIdsList()));
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    if (!gone.isEmpty()) {
      deletions.enqueue(m, inode, gone);
    }
  }

  private void deleteAll(Mutation m, ColumnFamily family, byte[] prefix) throws IOException {
    byte[] cursor = null;
    do {
      ScanPage page = m.scan(family, prefix, cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        m.delete(family, e.key());
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
  }

  /**
   * Closes a file whose writer's lease expired (the lease is {@code RECOVERING}) at its committed
   * length, in {@code m}; the lease goes once {@code m} is applied. A file already gone or closed
   * only releases the lease.
   */
  public void closeAbandoned(Mutation m, long fileId) throws IOException {
    Inode file = Tree.find(m, fileId);
    if (file != null && file.record().hasOpenForWrite()) {
      m.putInode(
          file.with(file.record().toBuilder().clearOpenForWrite().setCtimeNs(m.nowNs()).build()));
      closed(m, fileId);
    }
    m.afterApply(() -> leases.completeRecovery(fileId));
  }

  // ---- layouts, chunks and tokens ---------------------------------------------------------------

  /** The layout a new file in {@code dir} gets: policies from {@code dir} up, then the default. */
  LayoutRecord effectiveLayout(StoreView view, Inode dir) throws IOException {
    LayoutRecord acc = LayoutRecord.getDefaultInstance();
    Inode cur = dir;
    for (int depth = 0; depth < 4096; depth++) {
      if (cur.record().hasLayoutPolicy()) {
        acc = Attrs.inherit(acc, cur.record().getLayoutPolicy());
      }
      if (cur.id() == Tree.ROOT) {
        break;
      }
      cur = Tree.named(view, cur.record().getParentId(), "the parent of " + cur);
    }
    return Attrs.inherit(acc, defaultLayout);
  }

  /** The stored chunk {@code index} of {@code inode}, or null. */
  @Nullable ChunkRecord chunk(StoreView view, long inode, long index) throws IOException {
    byte[] key = Keys.chunk(inode, (int) index);
    byte[] v = view.get(ColumnFamily.CHUNKS, key);
    return v == null ? null : Records.decodeChunk(key, v);
  }

  /**
   * Places chunk set {@code set} of {@code inode} and records those of its chunks not yet recorded
   * with new versions.
   *
   * @param fresh whether {@code inode} was made by {@code m} (so it has no chunks yet, and none are
   *     looked up)
   * @throws IOException UNAVAILABLE or NO_SPACE when the live data servers cannot hold it
   */
  ChunkSetLocation allocateSet(
      Mutation m,
      long inode,
      LayoutRecord layoutRecord,
      long set,
      @Nullable String clientHost,
      boolean fresh)
      throws IOException {
    Layout layout = Attrs.layout(layoutRecord);
    List<List<DataServer>> chosen = placement.chooseChunkSet(layout, clientHost);
    int width = layout.stripeWidth();
    // A fresh inode's set is all new: its locations are built from the records made here and the
    // servers just chosen, rather than read back (the same answer, without the lookups).
    ChunkSetLocation.Builder loc =
        fresh
            ? ChunkSetLocation.newBuilder()
                .setSetIndex(set)
                .setFileOffset(set * width * layoutRecord.getChunkSizeBytes())
            : null;
    for (int i = 0; i < width; i++) {
      long index = set * width + i;
      if (!fresh && chunk(m, inode, index) != null) {
        continue; // a set a truncate cut short: only the chunks it released are placed again
      }
      ChunkRecord.Builder c = ChunkRecord.newBuilder().setVersion(counters.newVersion(m));
      for (DataServer s : chosen.get(i)) {
        c.addReplicaServerIds(s.id());
      }
      ChunkRecord record = c.build();
      m.put(ColumnFamily.CHUNKS, Keys.chunk(inode, (int) index), Records.encode(record));
      if (loc != null) {
        loc.addChunks(location(inode, index, record, chosen.get(i)));
      }
    }
    return loc != null ? loc.build() : chunkSet(m, inode, layoutRecord, set);
  }

  /** The location of a new chunk {@code c} on {@code servers} (its replicas, in order). */
  private ChunkLocation location(long inode, long index, ChunkRecord c, List<DataServer> servers) {
    ChunkLocation.Builder l =
        ChunkLocation.newBuilder()
            .setId(ChunkId.newBuilder().setInodeId(inode).setChunkIndex((int) index))
            .setVersion(c.getVersion())
            .setLength(c.getLengthBytes());
    for (DataServer s : servers) {
      l.addReplicas(replicaLocations.of(s));
    }
    return l.build();
  }

  /** The locations of chunk set {@code set}, or null if it has no chunks recorded. */
  @Nullable ChunkSetLocation chunkSetOrNull(
      StoreView view, long inode, LayoutRecord layout, long set) throws IOException {
    return chunkSetOrNull(view, inode, layout, set, null);
  }

  /**
   * As {@link #chunkSetOrNull(StoreView, long, LayoutRecord, long)}, each chunk's replicas nearest
   * to {@code readerHost} first (null: in their stored order, the write chain's).
   */
  @Nullable ChunkSetLocation chunkSetOrNull(
      StoreView view, long inode, LayoutRecord layout, long set, @Nullable String readerHost)
      throws IOException {
    ChunkSetLocation loc = chunkSet(view, inode, layout, set, readerHost);
    return loc.getChunksCount() == 0 ? null : loc;
  }

  ChunkSetLocation chunkSet(StoreView view, long inode, LayoutRecord layout, long set)
      throws IOException {
    return chunkSet(view, inode, layout, set, null);
  }

  private ChunkSetLocation chunkSet(
      StoreView view, long inode, LayoutRecord layout, long set, @Nullable String readerHost)
      throws IOException {
    int width = layout.getStripeWidth();
    ChunkSetLocation.Builder loc =
        ChunkSetLocation.newBuilder()
            .setSetIndex(set)
            .setFileOffset(set * width * layout.getChunkSizeBytes());
    for (int i = 0; i < width; i++) {
      long index = set * width + i;
      ChunkRecord c = chunk(view, inode, index);
      if (c != null) {
        loc.addChunks(locationFor(inode, index, c, readerHost));
      }
    }
    return loc.build();
  }

  ChunkLocation location(long inode, long index, ChunkRecord c) throws IOException {
    return locationFor(inode, index, c, null);
  }

  /**
   * The location of chunk {@code index}: its replicas in their stored order, or with {@code
   * readerHost}, nearest to it first (same host, same rack, the rest, each in stored order) and
   * those on servers not registered now last. Readers try the first replica first, and read it from
   * its file when it is on their host (short-circuit reads).
   */
  private ChunkLocation locationFor(
      long inode, long index, ChunkRecord c, @Nullable String readerHost) throws IOException {
    ChunkLocation.Builder l =
        ChunkLocation.newBuilder()
            .setId(ChunkId.newBuilder().setInodeId(inode).setChunkIndex((int) index))
            .setVersion(c.getVersion())
            .setLength(c.getLengthBytes());
    if (readerHost == null) {
      for (int serverId : c.getReplicaServerIdsList()) {
        DataServer s = registry.server(serverId);
        l.addReplicas(
            s != null
                ? replicaLocations.of(s)
                : ReplicaLocation.newBuilder().setServerId(serverId).build());
      }
      return l.build();
    }
    ChunkHealth health =
        ChunkHealth.of(
            registry,
            replicaMap,
            new ChunkRef(inode, (int) index),
            c.getVersion(),
            c.getReplicaServerIdsList());
    if (!health.readable().isEmpty()) {
      // Dead servers and bad replicas leave what readers get; draining servers come after the
      // others, as HDFS lists decommissioning nodes last.
      List<DataServer> good = new ArrayList<>();
      List<DataServer> draining = new ArrayList<>();
      for (int serverId : health.readable()) {
        DataServer s = registry.server(serverId);
        if (s != null) {
          (health.good().contains(serverId) ? good : draining).add(s);
        }
      }
      for (DataServer s : placement.readOrder(good, readerHost)) {
        l.addReplicas(replicaLocations.of(s));
      }
      for (DataServer s : placement.readOrder(draining, readerHost)) {
        l.addReplicas(replicaLocations.of(s));
      }
      return l.build();
    }
    if (registry.mayStillRegister()
        && c.getReplicaServerIdsList().stream().anyMatch(id -> registry.server(id) == null)) {
      // Just after this MDS started or took over: the holders have not registered yet (they do
      // at their next heartbeat). Readers retry BUSY; an address-less location would fail them.
      throw Resolver.fail(
          Status.BUSY,
          id
              + ": the data servers holding chunk "
              + index
              + " of inode "
              + inode
              + " have not registered with this MDS yet");
    }
    List<DataServer> known = new ArrayList<>(c.getReplicaServerIdsCount());
    List<ReplicaLocation> unknown = new ArrayList<>(0);
    for (int serverId : c.getReplicaServerIdsList()) {
      DataServer s = registry.server(serverId);
      if (s != null) {
        known.add(s);
      } else {
        unknown.add(ReplicaLocation.newBuilder().setServerId(serverId).build());
      }
    }
    for (DataServer s : placement.readOrder(known, readerHost)) {
      l.addReplicas(replicaLocations.of(s));
    }
    return l.addAllReplicas(unknown).build();
  }

  /**
   * Tells {@code listener} (on the mutation thread, once the record is applied) of every file whose
   * chunks may no longer match its replication: a SetReplication on a closed file, or the close of
   * a file whose replication changed while it was open. Set once, before serving.
   */
  public void onReplicationChange(LongConsumer listener) {
    replicationListener = listener;
  }

  /** After {@code m} is applied, tells the replication listener that {@code inode} changed. */
  void replicationChanged(Mutation m, long inode) {
    m.afterApply(() -> replicationListener.accept(inode));
  }

  /**
   * Notes that {@code inode}, open for writing, had its replication changed: its chunks are brought
   * to it once it is closed ({@link #closed}), as HDFS applies a new replication to a block under
   * construction when it is completed.
   */
  void replicateAtClose(long inode) {
    replicateAtClose.add(inode);
  }

  /** Whether {@code inode} is waiting for its close to be brought to its replication. */
  boolean waitsForClose(long inode) {
    return replicateAtClose.contains(inode);
  }

  /** After {@code m} (which closes {@code inode}) is applied, starts its deferred replication. */
  void closed(Mutation m, long inode) {
    m.afterApply(
        () -> {
          if (replicateAtClose.remove(inode)) {
            replicationListener.accept(inode);
          }
        });
  }

  /** A signed token for {@code client} on {@code file}'s chunks. */
  byte[] token(Client client, Inode file, int modes) {
    return token(
        client, file.id(), file.record().getGeneration(), modes, clock.currentTimeMillis());
  }

  /**
   * A signed token for {@code client} on the chunks of file {@code fileId} at {@code generation},
   * valid from {@code fromMs} (ms since the epoch) for the token lifetime. The same arguments give
   * the same bytes.
   */
  byte[] token(Client client, long fileId, long generation, int modes, long fromMs) {
    return token(client.id().toBytes(), fileId, generation, modes, fromMs);
  }

  /** As {@link #token(Client, long, long, int, long)}, for the client with id {@code clientId}. */
  byte[] token(byte[] clientId, long fileId, long generation, int modes, long fromMs) {
    TokenKeys keys = tokenKeys();
    CapabilityToken token =
        CapabilityToken.builder()
            .keyId(keys.currentKeyId())
            .mdsEpoch(epoch)
            .clientId(ClientId.of(clientId))
            .fileId(fileId)
            .fileGeneration(generation)
            .chunks(0, ALL_CHUNKS)
            .modes(modes)
            .validity(fromMs, fromMs + tokenLifetimeMs)
            .build();
    return keys.currentSigner().sign(token);
  }

  /**
   * Whether {@code token} is a write token this MDS issued to {@code client} for {@code file} at
   * its current generation and still valid: proof that the client's open for writing passed the
   * permission check (ftruncate(2) is checked against the descriptor, not the mode).
   */
  boolean opensForWriting(Client client, Inode file, ByteString token) {
    if (token.isEmpty()) {
      return false;
    }
    AccessRequest wanted =
        new AccessRequest(
            ClientId.of(client.id().toBytes()),
            file.id(),
            file.record().getGeneration(),
            0,
            CapabilityToken.WRITE,
            0);
    return new TokenVerifier(tokenKeys())
            .verify(token.toByteArray(), clock.currentTimeMillis(), wanted)
            .outcome()
        == TokenVerifier.Outcome.OK;
  }

  /** Resolves {@code path} (or the handle {@code inodeId} when non-zero). */
  Inode target(StoreView view, Caller caller, String op, String path, long inodeId, boolean follow)
      throws IOException {
    if (inodeId != 0) {
      return Tree.handle(view, inodeId, path.isEmpty() ? "inode " + inodeId : path);
    }
    return resolver.resolve(view, caller, op, BraidPath.parse(path), follow);
  }

  /** Checks {@code wanted} on {@code inode}. */
  void check(Caller caller, String op, String path, Inode inode, Access wanted) throws IOException {
    permissions.check(caller, op, path, path, inode.permission(), wanted);
  }

  @Override
  public String toString() {
    return "Namespace[" + id + "]";
  }
}
