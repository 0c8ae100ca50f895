package io.braidfs.mds.namespace;

import com.google.protobuf.ByteString;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.proto.AccessRequest;
import io.braidfs.proto.AccessResponse;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.ContentSummaryRequest;
import io.braidfs.proto.ContentSummaryResponse;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetAttrResponse;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.GetLayoutPolicyRequest;
import io.braidfs.proto.GetLayoutPolicyResponse;
import io.braidfs.proto.GetServerDefaultsResponse;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.GetXattrResponse;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.ListXattrsResponse;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.LookupResponse;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.ReadLinkRequest;
import io.braidfs.proto.ReadLinkResponse;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The read-only namespace operations. They read the store directly and may run on any number of
 * threads at once; they see every mutation applied so far.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class NamespaceReads {
  private final Namespace ns;

  public NamespaceReads(Namespace ns) {
    this.ns = ns;
  }

  public LookupResponse lookup(Caller caller, LookupRequest req) throws IOException {
    return lookup(ns.store, caller, req);
  }

  /**
   * {@link #lookup(Caller, LookupRequest)} reading {@code v} (the store, or a cache-only view that
   * throws where it would read the store).
   */
  public LookupResponse lookup(StoreView v, Caller caller, LookupRequest req) throws IOException {
    Inode found;
    if (req.getParentInodeId() != 0) {
      Inode dir = Tree.handle(v, req.getParentInodeId(), "directory " + req.getParentInodeId());
      BraidPath.validateName(req.getName());
      Resolver.Slot s = ns.resolver.slotIn(v, caller, "lookup", req.getName(), dir, req.getName());
      if (s.existing() == null) {
        throw Resolver.fail(Status.NOT_FOUND, "lookup " + req.getName() + ": no such entry");
      }
      found = s.existing();
      if (found.isSymlink() && req.getFollowSymlink()) {
        found =
            ns.resolver.resolve(v, caller, "lookup", BraidPath.parse(absolute(dir, found)), true);
      }
    } else {
      found =
          ns.resolver.resolve(
              v, caller, "lookup", BraidPath.parse(req.getPath()), req.getFollowSymlink());
    }
    return LookupResponse.newBuilder().setAttributes(Attrs.of(found)).build();
  }

  /** For a handle-based lookup through a relative symlink: not resolvable without a path. */
  private static String absolute(Inode dir, Inode link) throws IOException {
    String target = link.record().getSymlinkTarget();
    if (!target.startsWith("/")) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "lookup: a relative symlink under inode "
              + dir.id()
              + " cannot be followed by handle; resolve it by path");
    }
    return target;
  }

  public GetAttrResponse getAttr(Caller caller, GetAttrRequest req) throws IOException {
    return getAttr(ns.store, caller, req);
  }

  /**
   * {@link #getAttr(Caller, GetAttrRequest)} reading {@code v} (the store, or a cache-only view
   * that throws where it would read the store).
   */
  public GetAttrResponse getAttr(StoreView v, Caller caller, GetAttrRequest req)
      throws IOException {
    Inode inode = ns.target(v, caller, "getattr", req.getPath(), req.getInodeId(), false);
    return GetAttrResponse.newBuilder().setAttributes(Attrs.of(inode)).build();
  }

  /**
   * Whether the caller may have {@code req.getMask()} on the path: the same check every other call
   * makes ({@link io.braidfs.mds.access.Permissions}), superuser and supergroup included, after
   * search on every directory on the way. A final symlink is followed, as {@code access(2)} does.
   *
   * @throws IOException PERMISSION_DENIED naming what is missing; NOT_FOUND for a missing path;
   *     INVALID_ARGUMENT for a mask above 7
   */
  public AccessResponse access(Caller caller, AccessRequest req) throws IOException {
    if (req.getMask() > 7) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "access " + req.getPath() + ": mask " + req.getMask() + " is not 0 to 7");
    }
    Inode inode = ns.target(ns.store, caller, "access", req.getPath(), 0, true);
    ns.check(caller, "access", req.getPath(), inode, Access.ofBits(req.getMask()));
    return AccessResponse.getDefaultInstance();
  }

  public ReadDirResponse readDir(Caller caller, ReadDirRequest req) throws IOException {
    StoreView v = ns.store;
    String path = req.getPath();
    Inode dir = ns.target(v, caller, "readdir", path, req.getInodeId(), true);
    if (!dir.isDirectory()) {
      throw Resolver.fail(Status.NOT_DIRECTORY, "readdir " + path + ": not a directory");
    }
    ns.check(
        caller,
        "readdir",
        path,
        dir,
        req.getNamesOnly()
            ? Access.READ
            : Access.ofBits(Access.READ.bits() | Access.SEARCH.bits()));
    int max =
        req.getMaxEntries() == 0 ? ns.listPage : Math.min(req.getMaxEntries(), ns.listPage * 10);
    byte[] prefix = Keys.dentryPrefix(dir.id());
    byte[] after =
        req.getStartAfter().isEmpty() ? null : Keys.dentry(dir.id(), req.getStartAfter());
    ScanPage page = v.scan(ColumnFamily.DENTRIES, prefix, after, max);
    ReadDirResponse.Builder out = ReadDirResponse.newBuilder().setHasMore(page.hasMore());
    for (ScanPage.Entry e : page.entries()) {
      DentryValue d = Records.decodeDentry(e.key(), e.value());
      String name = Keys.dentryName(e.key());
      DirEntry.Builder entry =
          DirEntry.newBuilder()
              .setName(name)
              .setInodeId(d.getChildId())
              .setType(Attrs.fileType(d.getType()));
      if (!req.getNamesOnly()) {
        entry.setAttributes(Attrs.of(Tree.named(v, d.getChildId(), "entry '" + name + "'")));
      }
      out.addEntries(entry);
    }
    return out.build();
  }

  public ReadLinkResponse readLink(Caller caller, ReadLinkRequest req) throws IOException {
    Inode link = ns.target(ns.store, caller, "readlink", req.getPath(), 0, false);
    if (!link.isSymlink()) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, "readlink " + req.getPath() + ": not a symlink");
    }
    return ReadLinkResponse.newBuilder().setTarget(link.record().getSymlinkTarget()).build();
  }

  public GetXattrResponse getXattr(Caller caller, GetXattrRequest req) throws IOException {
    String path = req.getPath();
    Xattrs.Space space = Xattrs.space("getxattr", path, req.getName());
    Inode inode = ns.target(ns.store, caller, "getxattr", path, req.getInodeId(), false);
    Xattrs.checkRead(ns, caller, "getxattr", path, inode, space);
    byte[] value = ns.store.get(ColumnFamily.XATTRS, Keys.xattr(inode.id(), req.getName()));
    GetXattrResponse.Builder out = GetXattrResponse.newBuilder();
    if (value != null) {
      out.setValue(ByteString.copyFrom(value));
    }
    return out.build();
  }

  public ListXattrsResponse listXattrs(Caller caller, ListXattrsRequest req) throws IOException {
    String path = req.getPath();
    Inode inode = ns.target(ns.store, caller, "listxattr", path, req.getInodeId(), false);
    ListXattrsResponse.Builder out = ListXattrsResponse.newBuilder();
    byte[] cursor = null;
    do {
      ScanPage page =
          ns.store.scan(ColumnFamily.XATTRS, Keys.xattrPrefix(inode.id()), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        String name = Keys.xattrName(e.key());
        if (Xattrs.mayRead(ns, caller, inode, Xattrs.space("listxattr", path, name))) {
          out.addNames(name);
        }
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    return out.build();
  }

  /**
   * Capacity and usage: the raw figures of the live data servers (each file system once, see {@link
   * DataServerRegistry#totals()}), and what users can store, the raw figures divided by the
   * replication new files get at the root (its layout policy, else the configured default).
   */
  public StatFsResponse statFs(Caller caller, StatFsRequest req) throws IOException {
    DataServerRegistry.Totals t = ns.registry.totals();
    Inode root = Tree.named(ns.store, Tree.ROOT, "the root");
    int replication = Math.max(1, ns.effectiveLayout(ns.store, root).getReplication());
    return StatFsResponse.newBuilder()
        .setCapacityBytes(t.capacityBytes() / replication)
        .setUsedBytes(t.usedBytes() / replication)
        .setAvailableBytes(t.availableBytes() / replication)
        .setRawCapacityBytes(t.capacityBytes())
        .setRawUsedBytes(t.usedBytes())
        .setRawAvailableBytes(t.availableBytes())
        .setReplication(replication)
        .setInodeCount(ns.inodeCount())
        .setMaxNameBytes(BraidPath.MAX_NAME_BYTES)
        .setLiveDataServers(t.liveServers())
        .build();
  }

  /** Totals over a subtree, walked iteratively (deep trees must not overflow the stack). */
  public ContentSummaryResponse contentSummary(Caller caller, ContentSummaryRequest req)
      throws IOException {
    StoreView v = ns.store;
    Inode top = ns.resolver.resolve(v, caller, "du", BraidPath.parse(req.getPath()), false);
    long length = 0;
    long files = 0;
    long dirs = 0;
    long space = 0;
    Deque<Inode> todo = new ArrayDeque<>();
    todo.push(top);
    while (!todo.isEmpty()) {
      Inode cur = todo.pop();
      if (!cur.isDirectory()) {
        files++;
        InodeRecord r = cur.record();
        if (cur.isFile()) {
          length += r.getSize();
          // What the replicas hold: a hole of whole chunks takes no space (du, not du -b).
          space += Attrs.allocatedBytes(r) * r.getLayout().getReplication();
        }
        continue;
      }
      dirs++;
      ns.check(
          caller,
          "du",
          req.getPath(),
          cur,
          Access.ofBits(Access.READ.bits() | Access.SEARCH.bits()));
      byte[] cursor = null;
      do {
        ScanPage page = v.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(cur.id()), cursor, 1024);
        for (ScanPage.Entry e : page.entries()) {
          DentryValue d = Records.decodeDentry(e.key(), e.value());
          todo.push(Tree.named(v, d.getChildId(), "entry '" + Keys.dentryName(e.key()) + "'"));
        }
        cursor = page.hasMore() ? page.cursor() : null;
      } while (cursor != null);
    }
    return ContentSummaryResponse.newBuilder()
        .setLength(length)
        .setFileCount(files)
        .setDirectoryCount(dirs)
        .setSpaceConsumed(space)
        .build();
  }

  public GetLayoutPolicyResponse getLayoutPolicy(Caller caller, GetLayoutPolicyRequest req)
      throws IOException {
    Inode dir =
        ns.resolver.resolve(ns.store, caller, "getlayout", BraidPath.parse(req.getPath()), true);
    if (!dir.isDirectory()) {
      throw Resolver.fail(Status.NOT_DIRECTORY, "getlayout " + req.getPath() + ": not a directory");
    }
    LayoutRecord own =
        dir.record().hasLayoutPolicy()
            ? dir.record().getLayoutPolicy()
            : LayoutRecord.getDefaultInstance();
    return GetLayoutPolicyResponse.newBuilder()
        .setPolicy(Attrs.spec(own))
        .setEffective(Attrs.spec(ns.effectiveLayout(ns.store, dir)))
        .build();
  }

  /** Open without write: attributes, the first chunk sets' locations and a READ token. */
  public OpenResponse openForRead(Client client, OpenRequest req) throws IOException {
    if (req.getTruncate()) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "open " + req.getPath() + ": truncate requires write");
    }
    Caller caller = client.caller();
    Inode file = ns.target(ns.store, caller, "open", req.getPath(), req.getInodeId(), true);
    checkRegular("open", req.getPath(), file);
    ns.check(caller, "open", req.getPath(), file, Access.READ);
    return open(ns.store, client, file, req.getMaxChunkSets(), CapabilityToken.READ, true).build();
  }

  /**
   * The answer to an open of {@code file}, without a lease, with the chunk sets {@code v} holds;
   * with {@code forReading}, each chunk's replicas nearest to the client first, else in chain
   * order.
   */
  OpenResponse.Builder open(
      StoreView v, Client client, Inode file, int maxSets, int modes, boolean forReading)
      throws IOException {
    OpenResponse.Builder out = OpenResponse.newBuilder().setAttributes(Attrs.of(file));
    int sets = maxSets == 0 ? 1 : Math.min(maxSets, 1024);
    String near = forReading ? client.host() : null;
    for (long s = 0; s < sets; s++) {
      ChunkSetLocation loc = ns.chunkSetOrNull(v, file.id(), file.record().getLayout(), s, near);
      if (loc == null) {
        break;
      }
      out.addChunkSets(loc);
    }
    return out.setToken(ByteString.copyFrom(ns.token(client, file, modes)));
  }

  static void checkRegular(String op, String path, Inode inode) throws IOException {
    if (inode.isDirectory()) {
      throw Resolver.fail(Status.IS_DIRECTORY, op + " " + path + ": is a directory");
    }
    if (!inode.isFile()) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, op + " " + path + ": not a regular file but " + inode.kind());
    }
  }

  public GetChunkLocationsResponse getChunkLocations(Client client, GetChunkLocationsRequest req)
      throws IOException {
    Caller caller = client.caller();
    Inode file = ns.target(ns.store, caller, "locate", req.getPath(), req.getInodeId(), true);
    checkRegular("locate", req.getPath(), file);
    ns.check(caller, "locate", req.getPath(), file, Access.READ);
    LayoutRecord layout = file.record().getLayout();
    long span = layout.getChunkSizeBytes() * layout.getStripeWidth();
    long size = file.record().getSize();
    long end =
        req.getLength() == 0
            ? Math.max(size, req.getOffset() + 1)
            : req.getOffset() + req.getLength();
    GetChunkLocationsResponse.Builder out =
        GetChunkLocationsResponse.newBuilder()
            .setFileLength(size)
            .setUnderConstruction(file.record().hasOpenForWrite())
            .setLayout(Attrs.spec(layout));
    for (long s = req.getOffset() / span; s * span < end && out.getChunkSetsCount() < 1024; s++) {
      ChunkSetLocation loc = ns.chunkSetOrNull(ns.store, file.id(), layout, s, client.host());
      if (loc != null) {
        out.addChunkSets(loc);
      }
    }
    return out.setToken(ByteString.copyFrom(ns.token(client, file, CapabilityToken.READ))).build();
  }

  public GetServerDefaultsResponse serverDefaults(int maxMessage, int maxPayload) {
    return GetServerDefaultsResponse.newBuilder()
        .setDefaultLayout(Attrs.spec(ns.defaultLayout))
        .setChecksumBlockSize(Checksums.BLOCK_SIZE)
        .setServerTimeNs(ns.nowNs())
        .setTokenLifetimeMs((int) Math.min(Integer.MAX_VALUE, ns.tokenLifetimeMs))
        .setLeaseTtlMs((int) Math.min(Integer.MAX_VALUE, ns.leases.softLimit().toMillis()))
        .setMaxMessageBytes(maxMessage)
        .setMaxPayloadBytes(maxPayload)
        .setClusterId(ns.clusterId())
        .build();
  }
}
