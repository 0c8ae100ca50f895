package io.braidfs.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.ByteString;
import io.braidfs.client.internal.MetadataClient;
import io.braidfs.client.internal.data.FileChecksummer;
import io.braidfs.client.internal.data.FileSyncer;
import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.PrefetchBudget;
import io.braidfs.client.internal.data.ReadAhead;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.acl.AclEntry;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.rpc.ExpectedCluster;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.security.DelegationTokenCredentials;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.Tls;
import io.braidfs.proto.AccessRequest;
import io.braidfs.proto.AclOp;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CancelDelegationTokenRequest;
import io.braidfs.proto.ContentSummaryRequest;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.GetAclRequest;
import io.braidfs.proto.GetAclResponse;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetDelegationTokenRequest;
import io.braidfs.proto.GetDelegationTokenResponse;
import io.braidfs.proto.GetLayoutPolicyRequest;
import io.braidfs.proto.GetServerDefaultsRequest;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.GetXattrResponse;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MkdirResponse;
import io.braidfs.proto.MknodRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.ReadLinkRequest;
import io.braidfs.proto.RecoverLeaseRequest;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenewDelegationTokenRequest;
import io.braidfs.proto.RenewLeaseRequest;
import io.braidfs.proto.RenewLeaseResponse;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.SetAclRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetLayoutPolicyRequest;
import io.braidfs.proto.SetReplicationRequest;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.UnlinkRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Braid's Java API: every namespace operation, and streams that read and write file data straight
 * from and to the data servers. Metadata calls go to the leading MDS with failover ({@link
 * MetadataClient}); data calls share one connection per data server.
 *
 * <p>Paths are absolute ({@code /a/b}); repeated and trailing slashes are collapsed, and a path
 * with {@code .} or {@code ..} components is refused. Errors are {@link IOException}s carrying a
 * {@link Status} ({@code io.braidfs.common.error}): {@code FileNotFoundException} for NOT_FOUND,
 * {@code PathExistsException} for ALREADY_EXISTS and so on. A call that failed with UNAVAILABLE or
 * DEADLINE_EXCEEDED may or may not have been applied; the client has already retried it (with the
 * same call id, so at most once) until {@code braid.client.mds.failover-timeout}.
 *
 * <p>Consistency is close-to-open: {@link #open} and the write-opening calls always ask the MDS;
 * {@link #stat} may answer from a cache for up to {@code braid.client.cache.attr-ttl}, and every
 * change made through this client drops what it affects.
 *
 * <p>{@link #close()} closes every stream still open (output streams without committing) and the
 * connections.
 *
 * <pre>{@code
 * try (BraidClient c = BraidClient.builder(config).user("alice").build();
 *     OutputStream out = c.create("/data/a.bin", CreateOptions.defaults())) {
 *   out.write(bytes);
 * }
 * }</pre>
 *
 * <p>Why it is long: it is the one public facade of the client: one method per operation (over 50
 * public methods), each a few lines that build a request, call the MDS, convert the answer and drop
 * the cached attributes a change affects, with the javadoc of its contract; failover, the data path
 * and the conversions from protobuf are already {@code MetadataClient}, the {@code internal.data}
 * package and {@code Protos}.
 *
 * <p>Thread-safety: thread-safe. Streams are for one thread each, as java.io streams are.
 */
public final class BraidClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BraidClient.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final int LIST_PAGE = 1000;

  /** Chunk sets an open asks to be located in its answer. */
  private static final int OPEN_CHUNK_SETS = 4;

  private final String name;
  private final ClientOptions options;

  /** The group new inodes ask for ({@link ClientConfigKeys#CREATOR_GROUP}), or empty. */
  private final String newInodeGroup;

  private final RpcClient rpc;
  private final MetadataClient mds;
  private final ReplicaHealth health = new ReplicaHealth();
  private final LocalReplicas local;
  private final PrefetchBudget budget;
  private final Cache<String, FileAttributes> attrs;
  private final Map<BraidOutputStream, Boolean> writers = new ConcurrentHashMap<>();
  private final Map<BraidInputStream, Boolean> readers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService leaseTimer;
  private final ServerDefaults defaults;
  private volatile boolean closed;

  private BraidClient(Builder b) throws IOException {
    this.name = b.name;
    this.options = ClientOptions.from(b.config);
    List<String> groups = b.groups.isEmpty() ? List.of(b.user) : b.groups;
    this.newInodeGroup = options.creatorGroup() ? groups.get(0) : "";
    RpcClient r =
        RpcClient.builder(name)
            .user(b.user)
            .groups(groups)
            .options(RpcOptions.from(b.config))
            // With Kerberos: proves the user in each Hello (the user must be the ticket's).
            .credentials(
                b.tokens != null
                    ? new DelegationTokenCredentials(b.tokens, isMds(options.mds()))
                    : Security.clientCredentials(b.config, "localhost"))
            .tls(Tls.forClient(b.config, name))
            // Servers of another cluster are refused, so failover never leaves this cluster.
            .expectedCluster(ExpectedCluster.pinFirst(options.clusterId()))
            .build();
    r.start();
    this.rpc = r;
    this.local =
        options.shortCircuit()
            ? LocalReplicas.enabled(r, options.data().callTimeout())
            : LocalReplicas.disabled();
    this.mds = new MetadataClient(r, options.mds(), options.failoverTimeout());
    mds.failFastWhenRefused(b.config.get(ClientConfigKeys.FAIL_FAST_WHEN_REFUSED));
    this.budget = new PrefetchBudget(options.prefetchBudget());
    this.attrs =
        Caffeine.newBuilder()
            .maximumSize(options.cacheEntries())
            .expireAfterWrite(options.attrTtl())
            .build();
    this.leaseTimer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread t = new Thread(task, "braid-" + name + "-lease");
              t.setDaemon(true);
              return t;
            });
    try {
      this.defaults =
          Protos.serverDefaults(
              mds.call(
                  RpcMethod.GET_SERVER_DEFAULTS, GetServerDefaultsRequest.getDefaultInstance()));
    } catch (IOException | RuntimeException e) {
      leaseTimer.shutdownNow();
      r.close();
      throw e;
    }
    long renew = Math.max(100, defaults.leaseTtl().toMillis() / 3);
    leaseTimer.scheduleWithFixedDelay(this::renewLeases, renew, renew, TimeUnit.MILLISECONDS);
  }

  /** A builder for a client configured by {@code config} ({@code braid.client.*}). */
  public static Builder builder(BraidConfig config) {
    return new Builder(config);
  }

  public ClientOptions options() {
    return options;
  }

  /** The user this client acts as. */
  public String user() {
    return rpc.user();
  }

  /** The cluster's defaults and limits, as the MDS answered at connect. */
  public ServerDefaults serverDefaults() {
    return defaults;
  }

  MetadataClient metadata() {
    return mds;
  }

  /**
   * The operators' calls (fsck, the cluster report, decommission) over this client's connection.
   */
  public BraidAdmin admin() {
    return new BraidAdmin(mds);
  }

  /** The counters of this client's short-circuit reads of replicas on this host, now. */
  public ShortCircuitStats shortCircuitStats() {
    return new ShortCircuitStats(
        local.isEnabled(), local.localReads(), local.localBytes(), local.fallbacks());
  }

  /** The read-ahead memory all of this client's streams share, now. */
  public PrefetchStats prefetchStats() {
    return new PrefetchStats(budget.limit(), budget.used(), budget.peak());
  }

  // ---- attributes ------------------------------------------------------------------------------

  /**
   * The attributes of {@code path}, following a final symlink (stat); may come from the cache.
   *
   * @throws java.io.FileNotFoundException if there is no such entry
   */
  public FileAttributes stat(String path) throws IOException {
    String p = canonical(path);
    FileAttributes cached = attrs.getIfPresent(p);
    if (cached != null) {
      return cached;
    }
    Attributes a =
        mds.call(
                RpcMethod.LOOKUP,
                LookupRequest.newBuilder().setPath(p).setFollowSymlink(true).build())
            .getAttributes();
    FileAttributes f = new FileAttributes(a);
    if (!f.isSymlink()) {
      attrs.put(p, f);
    }
    return f;
  }

  /** The attributes of {@code path} itself, a symlink not followed (lstat); never cached. */
  public FileAttributes lstat(String path) throws IOException {
    String p = canonical(path);
    return new FileAttributes(
        mds.call(RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(p).build())
            .getAttributes());
  }

  /** The attributes of the inode {@code inodeId} (fstat); STALE_HANDLE if it is gone. */
  public FileAttributes getAttr(long inodeId) throws IOException {
    return new FileAttributes(
        mds.call(
                RpcMethod.GET_ATTR,
                GetAttrRequest.newBuilder().setInodeId(inodeId).setPath("/").build())
            .getAttributes());
  }

  /**
   * Looks {@code name} up in directory {@code parentInodeId} (FUSE lookup); no symlink followed.
   */
  public FileAttributes lookup(long parentInodeId, String name) throws IOException {
    BraidPath.validateName(name);
    return new FileAttributes(
        mds.call(
                RpcMethod.LOOKUP,
                LookupRequest.newBuilder().setParentInodeId(parentInodeId).setName(name).build())
            .getAttributes());
  }

  /** Whether {@code path} exists (following a final symlink). */
  public boolean exists(String path) throws IOException {
    try {
      stat(path);
      return true;
    } catch (java.io.FileNotFoundException e) {
      return false;
    }
  }

  /**
   * Checks that this client's user may have {@code mask} on {@code path}, by the MDS's own
   * permission check (the one every call makes, superuser and supergroup included), following a
   * final symlink: {@code access(2)}. Never answered from the cache.
   *
   * @param mask read 4, write 2, execute (search on a directory) 1, or-ed; 0 only checks that the
   *     path can be reached
   * @throws java.nio.file.AccessDeniedException (PERMISSION_DENIED) naming what is missing
   * @throws java.io.FileNotFoundException if there is no such entry
   * @throws IllegalArgumentException if {@code mask} is not 0 to 7
   */
  public void access(String path, int mask) throws IOException {
    if (mask < 0 || mask > 7) {
      throw new IllegalArgumentException("access " + path + ": mask " + mask + " is not 0 to 7");
    }
    mds.call(
        RpcMethod.ACCESS,
        AccessRequest.newBuilder().setPath(canonical(path)).setMask(mask).build());
  }

  /**
   * Applies a change of attributes to {@code path} (a final symlink is not followed): any subset of
   * mode, owner, times and size, at once (FUSE's setattr).
   *
   * @return the attributes after the change
   * @throws java.io.FileNotFoundException if there is no such entry
   * @throws java.nio.file.AccessDeniedException (PERMISSION_DENIED) if the caller may not make it
   */
  public FileAttributes setAttr(String path, AttrChange change) throws IOException {
    return setAttr(change.proto().toBuilder().setPath(canonical(path)).build());
  }

  /**
   * Applies a change of attributes to the inode {@code inodeId}, whatever its paths (fchmod,
   * futimens).
   *
   * @return the attributes after the change
   * @throws io.braidfs.common.error.StaleHandleException if the inode is gone
   */
  public FileAttributes setAttr(long inodeId, AttrChange change) throws IOException {
    return setAttr(change.proto().toBuilder().setInodeId(inodeId).setPath("/").build());
  }

  /** Sends a SetAttr whose path is canonical (or "/" beside an inode id). */
  private FileAttributes setAttr(SetAttrRequest r) throws IOException {
    try {
      return new FileAttributes(mds.call(RpcMethod.SET_ATTR, r).getAttributes());
    } finally {
      attrs.invalidateAll(); // by inode id the path is unknown here; attributes are cheap to reget
    }
  }

  /** chmod: sets the permission bits (07777). */
  public FileAttributes setPermission(String path, int mode) throws IOException {
    return setAttr(SetAttrRequest.newBuilder().setPath(canonical(path)).setMode(mode).build());
  }

  /** chown by name; a null user or group is left unchanged. */
  public FileAttributes setOwner(String path, @Nullable String user, @Nullable String group)
      throws IOException {
    SetAttrRequest.Builder b = SetAttrRequest.newBuilder().setPath(canonical(path));
    if (user != null) {
      b.setUser(user);
    }
    if (group != null) {
      b.setGroup(group);
    }
    return setAttr(b.build());
  }

  /** Sets the times in nanoseconds since the epoch; a negative time is left unchanged. */
  public FileAttributes setTimes(String path, long mtimeNanos, long atimeNanos) throws IOException {
    SetAttrRequest.Builder b = SetAttrRequest.newBuilder().setPath(canonical(path));
    if (mtimeNanos >= 0) {
      b.setMtimeNs(mtimeNanos);
    }
    if (atimeNanos >= 0) {
      b.setAtimeNs(atimeNanos);
    }
    return setAttr(b.build());
  }

  /** Cuts (or extends with a hole) a file to {@code length} bytes. */
  public FileAttributes truncate(String path, long length) throws IOException {
    return truncate(path, length, WriteToken.none());
  }

  /**
   * Cuts (or extends) a file through an open for writing (ftruncate(2)): {@code writeToken} is the
   * {@link BraidOutputStream#writeToken()} of that open, and while it is valid the MDS checks the
   * truncate against the open rather than the file's mode; empty checks the mode.
   */
  public FileAttributes truncate(String path, long length, WriteToken writeToken)
      throws IOException {
    if (length < 0) {
      throw StatusExceptions.toIOException(
          Status.INVALID_ARGUMENT, "truncate " + path + ": negative length " + length);
    }
    return setAttr(
        SetAttrRequest.newBuilder()
            .setPath(canonical(path))
            .setSize(length)
            .setWriteToken(writeToken.bytes())
            .build());
  }

  // ---- directories -----------------------------------------------------------------------------

  /** Makes one directory (mkdir(2)); mode is masked by the umask. */
  public FileAttributes mkdir(String path, int mode) throws IOException {
    String p = canonical(path);
    MkdirResponse r =
        mds.call(
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder()
                .setPath(p)
                .setMode(mode & ~options.umask() & 07777)
                .setGroup(newInodeGroup)
                .build());
    attrs.invalidate(p);
    return new FileAttributes(r.getAttributes());
  }

  /**
   * Makes a directory and its missing ancestors (Hadoop mkdirs).
   *
   * @return false if the directory already existed
   */
  public boolean mkdirs(String path, int mode) throws IOException {
    String p = canonical(path);
    MkdirResponse r =
        mds.call(
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder()
                .setPath(p)
                .setMode(mode & ~options.umask() & 07777)
                .setParents(true)
                .setGroup(newInodeGroup)
                .build());
    attrs.invalidate(p);
    return r.getCreated();
  }

  /**
   * One page of a directory's entries after {@code startAfter} ("" for the first page), with
   * attributes unless {@code namesOnly}.
   */
  public DirectoryPage list(String path, String startAfter, int maxEntries, boolean namesOnly)
      throws IOException {
    ReadDirResponse r =
        mds.call(
            RpcMethod.READ_DIR,
            ReadDirRequest.newBuilder()
                .setPath(canonical(path))
                .setStartAfter(startAfter)
                .setMaxEntries(maxEntries)
                .setNamesOnly(namesOnly)
                .build());
    List<DirectoryEntry> out = new ArrayList<>(r.getEntriesCount());
    for (DirEntry e : r.getEntriesList()) {
      out.add(
          new DirectoryEntry(
              e.getName(),
              e.getInodeId(),
              Protos.fileType(e.getType()),
              e.hasAttributes() ? new FileAttributes(e.getAttributes()) : null));
    }
    return new DirectoryPage(out, r.getHasMore());
  }

  /** Every entry of a directory, with attributes, page after page. */
  public List<DirectoryEntry> list(String path) throws IOException {
    List<DirectoryEntry> all = new ArrayList<>();
    String after = "";
    while (true) {
      DirectoryPage page = list(path, after, LIST_PAGE, false);
      all.addAll(page.entries());
      if (!page.hasMore() || page.entries().isEmpty()) {
        return all;
      }
      after = page.entries().get(page.entries().size() - 1).name();
    }
  }

  /** Removes an empty directory (rmdir(2)). */
  public void rmdir(String path) throws IOException {
    String p = canonical(path);
    try {
      mds.call(RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath(p).build());
    } finally {
      attrs.invalidateAll();
    }
  }

  // ---- entries ---------------------------------------------------------------------------------

  /**
   * rename(2): replaces a compatible destination; see {@link #rename(String, String,
   * RenameSemantics, boolean, boolean)}.
   */
  public String rename(String source, String destination) throws IOException {
    return rename(source, destination, RenameSemantics.POSIX, false, false);
  }

  /**
   * Renames atomically.
   *
   * @param semantics POSIX (replace a compatible destination) or HADOOP (move into an existing
   *     directory, never replace a file)
   * @param noReplace fail with ALREADY_EXISTS if the destination exists (POSIX only)
   * @param exchange swap source and destination (POSIX only)
   * @return the path the source now has
   */
  public String rename(
      String source,
      String destination,
      RenameSemantics semantics,
      boolean noReplace,
      boolean exchange)
      throws IOException {
    try {
      return mds.call(
              RpcMethod.RENAME,
              RenameRequest.newBuilder()
                  .setSourcePath(canonical(source))
                  .setDestinationPath(canonical(destination))
                  .setSemantics(Protos.toProto(semantics))
                  .setNoReplace(noReplace)
                  .setExchange(exchange)
                  .build())
          .getFinalPath();
    } finally {
      attrs.invalidateAll(); // a subtree moved: every cached path under it is wrong
    }
  }

  /** Removes a file or symlink (unlink(2)); an open stream keeps the file until it closes. */
  public void unlink(String path) throws IOException {
    String p = canonical(path);
    try {
      mds.call(RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath(p).build());
    } finally {
      attrs.invalidateAll(); // a hard link's attributes changed under other names
    }
  }

  /**
   * Removes a file, symlink or directory, with everything under it if {@code recursive}.
   *
   * @return the number of inodes removed
   */
  public long delete(String path, boolean recursive) throws IOException {
    String p = canonical(path);
    try {
      return mds.call(
              RpcMethod.DELETE,
              DeleteRequest.newBuilder().setPath(p).setRecursive(recursive).build())
          .getDeletedCount();
    } finally {
      attrs.invalidateAll();
    }
  }

  /** Makes a hard link {@code newPath} to {@code existing} (link(2)). */
  public FileAttributes link(String existing, String newPath) throws IOException {
    try {
      return new FileAttributes(
          mds.call(
                  RpcMethod.LINK,
                  LinkRequest.newBuilder()
                      .setExistingPath(canonical(existing))
                      .setNewPath(canonical(newPath))
                      .build())
              .getAttributes());
    } finally {
      attrs.invalidateAll();
    }
  }

  /** Makes a symlink at {@code path} pointing to {@code target} (stored verbatim). */
  public FileAttributes symlink(String target, String path, boolean createParents)
      throws IOException {
    return new FileAttributes(
        mds.call(
                RpcMethod.SYMLINK,
                SymlinkRequest.newBuilder()
                    .setTarget(target)
                    .setPath(canonical(path))
                    .setCreateParents(createParents)
                    .setGroup(newInodeGroup)
                    .build())
            .getAttributes());
  }

  /**
   * Makes a special file (mknod(2), mkfifo(3)): a FIFO, a character or block device, or a unix
   * socket's name. Only the inode is stored; the kernel of the machine that opens it does its I/O,
   * so {@link #open} and {@link #create} refuse it. Regular files are made by {@link #create}.
   *
   * @param type {@link FileType#FIFO}, {@link FileType#CHARACTER_DEVICE}, {@link
   *     FileType#BLOCK_DEVICE} or {@link FileType#SOCKET}; the MDS refuses others ({@link
   *     io.braidfs.common.error.InvalidArgumentException})
   * @param mode permission bits, masked by the umask (type bits are dropped)
   * @param rdev a device's number as Linux encodes it in {@code st_rdev}; 0 for a FIFO or socket
   * @throws io.braidfs.common.error.PathExistsException if {@code path} exists
   */
  public FileAttributes mknod(String path, FileType type, int mode, long rdev) throws IOException {
    String p = canonical(path);
    try {
      return new FileAttributes(
          mds.call(
                  RpcMethod.MKNOD,
                  MknodRequest.newBuilder()
                      .setPath(p)
                      .setType(Protos.toProto(type))
                      .setMode(mode & ~options.umask() & 07777)
                      .setRdev(rdev)
                      .setGroup(newInodeGroup)
                      .build())
              .getAttributes());
    } finally {
      attrs.invalidate(p); // a cached negative answer, or the parent's stale times
    }
  }

  /** A symlink's target exactly as stored. */
  public String readLink(String path) throws IOException {
    return mds.call(
            RpcMethod.READ_LINK, ReadLinkRequest.newBuilder().setPath(canonical(path)).build())
        .getTarget();
  }

  // ---- extended attributes ---------------------------------------------------------------------

  /** One extended attribute's value, or empty if it is not set. */
  public Optional<byte[]> getXattr(String path, String name) throws IOException {
    GetXattrResponse r =
        mds.call(
            RpcMethod.GET_XATTR,
            GetXattrRequest.newBuilder().setPath(canonical(path)).setName(name).build());
    return r.hasValue() ? Optional.of(r.getValue().toByteArray()) : Optional.empty();
  }

  /** Sets one extended attribute (create-only, replace-only, or either). */
  /**
   * Changes the POSIX ACL of {@code path} (following symlinks); its owner or a superuser may.
   *
   * @return the attributes after the change (the mode carries the new mask)
   * @throws IOException INVALID_ARGUMENT naming what is wrong with the entries (a default entry on
   *     a file, an entry named twice, a new ACL without its base entries); PERMISSION_DENIED
   */
  public FileAttributes setAcl(String path, AclChange change, List<AclEntry> entries)
      throws IOException {
    String p = canonical(path);
    FileAttributes a =
        new FileAttributes(
            mds.call(
                    RpcMethod.SET_ACL,
                    SetAclRequest.newBuilder()
                        .setPath(p)
                        .setOp(AclOp.forNumber(change.ordinal() + 1))
                        .addAllEntries(Protos.aclEntriesToWire(entries))
                        .build())
                .getAttributes());
    attrs.invalidate(p);
    return a;
  }

  /** The POSIX ACL of {@code path} (following symlinks), as Hadoop's getAclStatus gives it. */
  public AclStatus getAcl(String path) throws IOException {
    GetAclResponse r =
        mds.call(RpcMethod.GET_ACL, GetAclRequest.newBuilder().setPath(canonical(path)).build());
    return new AclStatus(
        r.getOwner(), r.getGroup(), r.getMode(), Protos.aclEntriesFromWire(r.getEntriesList()));
  }

  public void setXattr(String path, String name, byte[] value, XattrSetMode mode)
      throws IOException {
    mds.call(
        RpcMethod.SET_XATTR,
        SetXattrRequest.newBuilder()
            .setPath(canonical(path))
            .setName(name)
            .setValue(ByteString.copyFrom(value))
            .setMode(Protos.toProto(mode))
            .build());
    attrs.invalidate(canonical(path));
  }

  /** The names of a target's extended attributes the caller may read. */
  public List<String> listXattrs(String path) throws IOException {
    return mds.call(
            RpcMethod.LIST_XATTRS, ListXattrsRequest.newBuilder().setPath(canonical(path)).build())
        .getNamesList();
  }

  /** Removes one extended attribute; NOT_FOUND if it is not set. */
  public void removeXattr(String path, String name) throws IOException {
    mds.call(
        RpcMethod.REMOVE_XATTR,
        RemoveXattrRequest.newBuilder().setPath(canonical(path)).setName(name).build());
    attrs.invalidate(canonical(path));
  }

  // ---- file system -----------------------------------------------------------------------------

  /**
   * Capacity and usage of the whole file system: what users can store (the raw figures divided by
   * the replication at the root; FUSE statfs, df) and the raw figures with every replica (Hadoop
   * getStatus); each disk counted once however many data servers share it.
   */
  public FileSystemStats statFs() throws IOException {
    return Protos.fileSystemStats(
        mds.call(RpcMethod.STAT_FS, StatFsRequest.newBuilder().setPath("/").build()));
  }

  // ---- delegation tokens -----------------------------------------------------------------------

  /**
   * Whether an address dialled is one of {@code mds} (the MDS half of a token's proof goes there).
   */
  private static java.util.function.Predicate<InetSocketAddress> isMds(
      List<InetSocketAddress> mds) {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (InetSocketAddress a : mds) {
      names.add(a.getHostString() + ":" + a.getPort());
    }
    return a -> names.contains(a.getHostString() + ":" + a.getPort());
  }

  // -------------------------------------------------------------------------

  /**
   * A delegation token for this client's user, for a job's tasks to authenticate with; this client
   * must have authenticated with Kerberos.
   *
   * @param renewer the user who may renew it (a scheduler such as YARN); empty for this user
   * @throws IOException PERMISSION_DENIED without Kerberos, with a token, or as a service user
   */
  public DelegationToken getDelegationToken(String renewer) throws IOException {
    GetDelegationTokenResponse r =
        mds.call(
            RpcMethod.GET_DELEGATION_TOKEN,
            GetDelegationTokenRequest.newBuilder().setRenewer(renewer).build());
    return new DelegationToken(
        r.getIdentifier().toByteArray(), r.getPassword().toByteArray(), r.getExpiresMs());
  }

  /**
   * Extends a token's life by the MDS's renew interval, never past its max date; only its renewer
   * may.
   *
   * @return the new expiry, ms since the epoch
   */
  public long renewDelegationToken(byte[] identifier) throws IOException {
    return mds.call(
            RpcMethod.RENEW_DELEGATION_TOKEN,
            RenewDelegationTokenRequest.newBuilder()
                .setIdentifier(ByteString.copyFrom(identifier))
                .build())
        .getExpiresMs();
  }

  /** Ends a token now; its owner or renewer may. */
  public void cancelDelegationToken(byte[] identifier) throws IOException {
    mds.call(
        RpcMethod.CANCEL_DELEGATION_TOKEN,
        CancelDelegationTokenRequest.newBuilder()
            .setIdentifier(ByteString.copyFrom(identifier))
            .build());
  }

  /** Totals over a subtree (du, Hadoop getContentSummary). */
  public ContentSummary contentSummary(String path) throws IOException {
    return Protos.contentSummary(
        mds.call(
            RpcMethod.CONTENT_SUMMARY,
            ContentSummaryRequest.newBuilder().setPath(canonical(path)).build()));
  }

  /** A directory's own layout policy and the effective one new files there get. */
  public DirectoryLayout layoutPolicy(String path) throws IOException {
    return Protos.directoryLayout(
        mds.call(
            RpcMethod.GET_LAYOUT_POLICY,
            GetLayoutPolicyRequest.newBuilder().setPath(canonical(path)).build()));
  }

  /**
   * Sets a directory's layout policy (0 fields inherit); existing files keep their layouts.
   *
   * @return the layout new files in the directory now get
   */
  public LayoutPolicy setLayoutPolicy(String path, LayoutPolicy policy) throws IOException {
    return Protos.layoutPolicy(
        mds.call(
                RpcMethod.SET_LAYOUT_POLICY,
                SetLayoutPolicyRequest.newBuilder()
                    .setPath(canonical(path))
                    .setPolicy(Protos.toProto(policy))
                    .build())
            .getEffective());
  }

  /** Removes a directory's layout policy, so that everything is inherited. */
  public LayoutPolicy clearLayoutPolicy(String path) throws IOException {
    return Protos.layoutPolicy(
        mds.call(
                RpcMethod.SET_LAYOUT_POLICY,
                SetLayoutPolicyRequest.newBuilder().setPath(canonical(path)).setClear(true).build())
            .getEffective());
  }

  /** The chunk sets and replicas holding a byte range of a file (length 0: to the end). */
  public ChunkLocations locations(String path, long offset, long length) throws IOException {
    return Protos.chunkLocations(
        mds.call(
            RpcMethod.GET_CHUNK_LOCATIONS,
            GetChunkLocationsRequest.newBuilder()
                .setPath(canonical(path))
                .setOffset(offset)
                .setLength(length)
                .build()));
  }

  /**
   * The CRC32C of the file's bytes, composed from the CRCs the data servers keep, without reading
   * the data; equal for equal bytes whatever the layouts (Hadoop getFileChecksum, as HDFS's
   * COMPOSITE_CRC). A file being written is checksummed up to the length its writer last committed.
   *
   * @throws java.io.FileNotFoundException if there is no such file
   * @throws io.braidfs.common.error.IsDirectoryException if {@code path} is a directory
   * @throws IOException if a chunk could not be checksummed by any of its replicas
   */
  public FileChecksum checksum(String path) throws IOException {
    checkOpen();
    String p = canonical(path);
    OpenResponse r =
        mds.call(
            RpcMethod.OPEN,
            OpenRequest.newBuilder()
                .setPath(p)
                .setMaxChunkSets(FileChecksummer.OPEN_CHUNK_SETS)
                .build());
    Attributes a = r.getAttributes();
    int crc =
        new FileChecksummer(rpc, mds, health, options.data())
            .crc32c(p, FileAttributes.toLayout(a.getLayout()), r);
    return new FileChecksum(a.getSize(), crc);
  }

  /**
   * Forces a file's data to disk on every replica (fsync(2) of a file whose writer closed without
   * syncing, {@code braid.client.close.sync=false}, or of a file opened read-only). A stream still
   * writing syncs its own data with {@link BraidOutputStream#hsync()}.
   *
   * @throws java.io.FileNotFoundException if there is no such file
   * @throws IOException if a replica could not be forced (its durability is then unknown)
   */
  public void sync(String path) throws IOException {
    checkOpen();
    String p = canonical(path);
    new FileSyncer(rpc, mds, options.data()).sync(p, stat(p).layout());
  }

  /**
   * Appends the sources' bytes to {@code target}, in order, and removes the sources (HDFS concat).
   * Any lengths and layouts work: the bytes are copied through this client (read from the sources,
   * appended to the target under its write lease), then one MDS call commits the append and removes
   * the sources atomically. A failure before that call leaves the target and every source as they
   * were; a failure of that call with UNAVAILABLE or DEADLINE_EXCEEDED may or may not have been
   * applied.
   *
   * @param target an existing regular file, not open for writing (a final symlink is followed)
   * @param sources at least one distinct regular file other than the target, none open for writing
   *     (final symlinks are not followed); the caller needs read on each and write and search on
   *     each one's directory, as for unlink
   * @return the target's attributes afterwards
   * @throws java.io.FileNotFoundException if the target or a source does not exist
   * @throws io.braidfs.common.error.IsDirectoryException if one of them is a directory
   * @throws io.braidfs.common.error.InvalidArgumentException with no sources, a source named twice
   *     or equal to the target, or one that is not a regular file
   * @throws io.braidfs.common.error.LeaseConflictException if one of them is open for writing
   * @throws io.braidfs.common.error.StaleHandleException if a source changed while it was copied
   */
  public FileAttributes concat(String target, List<String> sources) throws IOException {
    checkOpen();
    String t = canonical(target);
    List<String> s = new ArrayList<>(sources.size());
    for (String source : sources) {
      s.add(canonical(source));
    }
    try {
      return new Concatenation(this, mds).run(t, s);
    } finally {
      attrs.invalidateAll();
    }
  }

  /**
   * Sets the number of replicas of a file's chunks (Hadoop's setReplication). The file's layout
   * records it at once ({@link #stat} reports it); the MDS then copies chunks to further data
   * servers, or removes extra replicas, in the background, so {@link #locations} shows the new
   * replica sets once that is done. A file open for writing gets it when it is closed. Idempotent:
   * a retry after a timeout asks for the same state.
   *
   * @return false if {@code path} is a directory (nothing changes, as with HDFS); true otherwise
   * @throws IOException NOT_FOUND; PERMISSION_DENIED without write access to the file;
   *     INVALID_ARGUMENT below 1 or above the MDS's maximum; UNAVAILABLE above the number of live
   *     data servers
   */
  public boolean setReplication(String path, int replication) throws IOException {
    String p = canonical(path);
    try {
      return mds.call(
              RpcMethod.SET_REPLICATION,
              SetReplicationRequest.newBuilder().setPath(p).setReplication(replication).build())
          .getApplied();
    } finally {
      attrs.invalidate(p);
    }
  }

  /**
   * Takes the lease of a file whose writer died and closes it at the length its replicas agree on.
   *
   * @return true if the file is closed now; false if recovery started (ask again shortly)
   */
  public boolean recoverLease(String path) throws IOException {
    String p = canonical(path);
    attrs.invalidate(p);
    return mds.call(RpcMethod.RECOVER_LEASE, RecoverLeaseRequest.newBuilder().setPath(p).build())
        .getClosed();
  }

  // ---- streams ---------------------------------------------------------------------------------

  /** Creates a file with the default options (no overwrite, parents made) and opens it to write. */
  public BraidOutputStream create(String path) throws IOException {
    return create(path, CreateOptions.defaults());
  }

  /**
   * Creates a file and opens it for writing, in one round trip; the client holds its write lease
   * until the stream is closed.
   *
   * @throws io.braidfs.common.error.PathExistsException if it exists and overwrite is off
   */
  public BraidOutputStream create(String path, CreateOptions create) throws IOException {
    checkOpen();
    String p = canonical(path);
    CreateResponse r =
        mds.call(
            RpcMethod.CREATE,
            CreateRequest.newBuilder()
                .setPath(p)
                .setMode(create.mode() & ~options.umask() & 07777)
                .setOverwrite(create.overwrite())
                .setCreateParents(create.createParents())
                .setLayout(Protos.toProto(create.layout()))
                .setGroup(newInodeGroup)
                .setBlockSize(create.blockSize())
                .build());
    attrs.invalidate(p);
    Attributes a = r.getAttributes();
    BraidOutputStream out =
        writer(
            p,
            new WriteTarget(
                a.getInodeId(),
                p,
                FileAttributes.toLayout(a.getLayout()),
                0,
                r.getToken(),
                List.of(r.getFirstChunkSet())),
            0);
    out.created(new FileAttributes(a));
    return out;
  }

  /** Opens an existing file to append to its end (Hadoop append). */
  public BraidOutputStream append(String path) throws IOException {
    String p = canonical(path);
    OpenResponse r = openWriting(p, false);
    return writer(p, r, r.getAttributes().getSize());
  }

  /**
   * Opens an existing file for writing at any offset ({@link BraidOutputStream#write(long,
   * java.nio.ByteBuffer)}), its length first cut to 0 if {@code truncate} (O_TRUNC); the position
   * starts at 0. For FUSE, which writes at offsets.
   */
  public BraidOutputStream openForWrite(String path, boolean truncate) throws IOException {
    String p = canonical(path);
    return writer(p, openWriting(p, truncate), 0);
  }

  private OpenResponse openWriting(String p, boolean truncate) throws IOException {
    checkOpen();
    OpenResponse r =
        mds.call(
            RpcMethod.OPEN,
            OpenRequest.newBuilder().setPath(p).setWrite(true).setTruncate(truncate).build());
    attrs.invalidate(p);
    return r;
  }

  private BraidOutputStream writer(String p, OpenResponse r, long position) {
    Attributes a = r.getAttributes();
    return writer(
        p,
        new WriteTarget(
            a.getInodeId(),
            p,
            FileAttributes.toLayout(a.getLayout()),
            a.getSize(),
            r.getToken(),
            r.getChunkSetsList()),
        position);
  }

  private BraidOutputStream writer(String path, WriteTarget target, long position) {
    DataPathOptions data = streamOptions(target.layout());
    StripedWriter w = new StripedWriter(rpc, mds, data, target);
    BraidOutputStream out = new BraidOutputStream(this, path, target.inodeId(), w, position);
    writers.put(out, Boolean.TRUE);
    return out;
  }

  /** The data path's options for a stream of this layout: write-behind counted in its transfers. */
  private DataPathOptions streamOptions(Layout layout) {
    DataPathOptions d = options.data();
    int transfer = Math.min(d.maxTransfer(), layout.stripeUnit());
    int inFlight = (int) Math.max(1, Math.min(4096, options.writeBehind() / transfer));
    return new DataPathOptions(
        d.maxTransfer(), inFlight, d.callTimeout(), d.maxReplacements(), d.syncOnClose());
  }

  /**
   * Opens a file to read. The MDS is asked every time (close-to-open): the stream sees every write
   * committed before this call.
   */
  public BraidInputStream open(String path) throws IOException {
    checkOpen();
    String p = canonical(path);
    OpenResponse r =
        mds.call(
            RpcMethod.OPEN,
            OpenRequest.newBuilder().setPath(p).setMaxChunkSets(OPEN_CHUNK_SETS).build());
    Attributes a = r.getAttributes();
    attrs.put(p, new FileAttributes(a));
    Layout layout = FileAttributes.toLayout(a.getLayout());
    StripedReader reader =
        new StripedReader(rpc, mds, health, options.data(), local, a.getInodeId(), p, layout);
    // The open's answer locates the first chunk sets: reading them costs no other MDS call.
    reader.prime(r.getChunkSetsList(), r.getToken(), a.getSize());
    BraidInputStream in =
        new BraidInputStream(
            this,
            p,
            a.getInodeId(),
            reader,
            new ReadAhead(reader, budget, options, layout.stripeUnit()));
    readers.put(in, Boolean.TRUE);
    return in;
  }

  // ---- leases and bookkeeping ------------------------------------------------------------------

  /** A stream committed its file: its cached attributes are stale. */
  void committed(String path, Attributes after) {
    // Not cached under the path: the file may have been renamed or replaced while it was written.
    attrs.invalidate(path);
  }

  void writerClosed(BraidOutputStream out) {
    writers.remove(out);
  }

  void readerClosed(BraidInputStream in) {
    readers.remove(in);
  }

  private void renewLeases() {
    if (writers.isEmpty() || closed) {
      return;
    }
    try {
      RenewLeaseResponse r =
          mds.call(RpcMethod.RENEW_LEASE, RenewLeaseRequest.getDefaultInstance());
      for (long lost : r.getLostInodeIdsList()) {
        for (BraidOutputStream out : writers.keySet()) {
          if (out.inodeId() == lost) {
            out.leaseLost(
                StatusExceptions.toIOException(
                    Status.LEASE_EXPIRED,
                    out.path()
                        + ": this client lost the file's write lease (expired or recovered)"));
          }
        }
      }
    } catch (IOException e) {
      LOG.warn("{}: cannot renew write leases: {}", name, e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("{}: lease renewal failed", name, e);
    }
  }

  private static String canonical(String path) throws IOException {
    return BraidPath.parse(path).toString();
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(name + ": client is closed");
    }
  }

  /**
   * Closes the client: output streams still open are abandoned without committing (their files keep
   * the length of their last hflush, and their leases expire), then the connections close.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leaseTimer.shutdownNow();
    mds.close();
    // Connections first: that fails every call in flight, so a stream blocked in a write or a
    // read returns (and lets go of its monitor) before it is aborted or closed below.
    rpc.close();
    for (BraidOutputStream out : new ArrayList<>(writers.keySet())) {
      out.abort();
    }
    writers.clear();
    for (BraidInputStream in : new ArrayList<>(readers.keySet())) {
      in.close(); // gives its read-ahead memory back
    }
    local.close();
    try {
      if (!leaseTimer.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("{}: lease thread did not stop within 5 s", name);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Builds and connects a {@link BraidClient}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final BraidConfig config;
    private String user = System.getProperty("user.name", "nobody");
    private List<String> groups = List.of();
    private @Nullable Supplier<DelegationTokenCredentials.Token> tokens;
    private String name = "client-" + IDS.incrementAndGet();

    private Builder(BraidConfig config) {
      this.config = config;
    }

    /** The user the client acts as (default: the JVM's user.name). */
    public Builder user(String newUser) {
      this.user = newUser;
      return this;
    }

    /** The user's groups (default: one group named like the user). */
    public Builder groups(List<String> newGroups) {
      this.groups = List.copyOf(newGroups);
      return this;
    }

    /**
     * Authenticates with a delegation token instead of Kerberos (a job's task); the client acts as
     * the token's owner.
     */
    public Builder delegationToken(DelegationToken newToken) {
      return delegationTokens(() -> newToken);
    }

    /**
     * As {@link #delegationToken}, with whatever token {@code source} gives when a connection opens
     * (a job whose tokens are replaced uses the new one from its next connection); the client acts
     * as the owner of the token it gives now.
     */
    public Builder delegationTokens(Supplier<DelegationToken> source) {
      this.tokens =
          () -> {
            DelegationToken t = source.get();
            return new DelegationTokenCredentials.Token(t.identifier(), t.password());
          };
      this.user = source.get().fields().owner();
      return this;
    }

    /** The name in logs and thread names. */
    public Builder name(String newName) {
      this.name = newName;
      return this;
    }

    /**
     * Connects: asks the MDS for the cluster's defaults, failing over as configured.
     *
     * @throws IOException UNAVAILABLE if no MDS answered within the failover timeout
     * @throws IllegalArgumentException naming a configuration key whose value is invalid
     */
    public BraidClient build() throws IOException {
      return new BraidClient(this);
    }
  }
}
