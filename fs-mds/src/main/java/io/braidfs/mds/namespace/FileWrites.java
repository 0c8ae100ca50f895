package io.braidfs.mds.namespace;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.braidfs.common.error.Status;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.path.BraidPath;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.lease.RecoveryOutcome;
import io.braidfs.mds.lease.Renewal;
import io.braidfs.mds.namespace.Resolver.Slot;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.mds.store.proto.OpenForWrite;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.LeaseInfo;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.RecoverLeaseRequest;
import io.braidfs.proto.RecoverLeaseResponse;
import io.braidfs.proto.RenewLeaseResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetAttrResponse;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mutations of files and their contents: create, open for writing, setattr (including
 * truncate), commit, length updates, chunk allocation and replica replacement, leases. The single
 * writer of a file holds its lease; the inode records the writer ({@code open_for_write}) so leases
 * can be rebuilt after a restart.
 *
 * <p>Why it is long: it holds every mutation of a file and its contents, from create to commit, and
 * setattr's checks of each attribute. It could be split cleanly: setattr with {@code truncate} and
 * {@code allocatedBytes} (about 180 lines) would make a class of its own, called by the O_TRUNC of
 * {@code openForWrite} and by the write-path calls here.
 *
 * <p>Thread-safety: not thread-safe; runs on the mutation thread.
 */
public final class FileWrites {
  private static final Logger LOG = LoggerFactory.getLogger(FileWrites.class);

  private final Namespace ns;
  private final NamespaceWrites names;
  private final NamespaceReads reads;

  public FileWrites(Namespace ns, NamespaceWrites names, NamespaceReads reads) {
    this.ns = ns;
    this.names = names;
    this.reads = reads;
  }

  // ---- create and open --------------------------------------------------------------------------

  public CreateResponse create(Mutation m, Client client, CreateRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    if (path.isRoot()) {
      throw Resolver.fail(Status.IS_DIRECTORY, "create /: is a directory");
    }
    Slot s = names.slot(m, caller, "create", path, req.getCreateParents(), 0755, req.getGroup());
    Inode existing = s.existing();
    if (existing != null) {
      if (existing.isDirectory()) {
        throw Resolver.fail(Status.IS_DIRECTORY, "create " + path + ": is a directory");
      }
      if (!req.getOverwrite()) {
        throw Resolver.fail(Status.ALREADY_EXISTS, "create " + path + ": exists");
      }
      checkNotWrittenByOther("create", path.toString(), existing, client);
    }
    ns.permissions.check(
        caller,
        "create",
        path.toString(),
        Resolver.parentOf(path.toString()),
        s.dir().permission(),
        NamespaceWrites.WX);
    if (existing != null) {
      ns.permissions.checkSticky(
          caller, "create", path.toString(), s.dir().permission(), existing.permission());
    }
    LayoutRecord layout =
        Attrs.inherit(Attrs.record(req.getLayout()), ns.effectiveLayout(m, s.dir()));
    NamespaceWrites.validLayout("create " + path, layout);
    if (req.getBlockSize() < 0) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "create " + path + ": block size " + Long.toUnsignedString(req.getBlockSize()));
    }
    if (existing != null) {
      ns.unlinkEntry(m, s.dir(), s.name(), existing);
      ns.dropLink(m, existing);
    }
    long id = ns.counters.newInode(m);
    Inode file =
        new Inode(
            id,
            ns.newRecord(
                    m, caller, InodeType.INODE_TYPE_REGULAR, req.getMode(), s.dir(), req.getGroup())
                .setNlink(1)
                .setLayout(layout)
                .setBlockSize(req.getBlockSize())
                .setAllocatedBytes(0)
                .setOpenForWrite(writer(client))
                .build());
    m.putInode(file);
    ns.link(m, s.dir(), s.name(), file);
    CreateResponse.Builder out = CreateResponse.newBuilder().setAttributes(Attrs.of(file));
    try {
      out.setFirstChunkSet(ns.allocateSet(m, id, layout, 0, client.host(), true));
    } catch (IOException e) {
      // The file is still created (an empty file needs no data servers); the writer's
      // AllocateChunkSet reports why no chunks could be placed.
      LOG.debug("{}: create {}: no chunk set placed: {}", ns.id, path, e.getMessage());
    }
    // The token is added by tokenField when the answer leaves, off the mutation thread.
    m.afterApply(() -> acquire(file.id(), client));
    return out.setLease(lease(file.id())).build();
  }

  /**
   * The capability token of {@code created} (READ and WRITE on the new file, valid from the
   * create's time) as a serialized {@code CreateResponse} holding only that field, to append to the
   * answer's bytes: {@link #create} leaves the token out so that the HMAC is not computed on the
   * mutation thread, nor kept in the journal and the retry cache. The same answer gives the same
   * token, so a retry answered from the retry cache gets the first answer's bytes. Thread-safe.
   */
  public byte[] tokenField(Client client, CreateResponse created) {
    var attrs = created.getAttributes();
    byte[] token =
        ns.token(
            client,
            attrs.getInodeId(),
            attrs.getGeneration(),
            CapabilityToken.READ | CapabilityToken.WRITE,
            attrs.getCtimeNs() / 1_000_000L);
    return CreateResponse.newBuilder()
        .setToken(UnsafeByteOperations.unsafeWrap(token))
        .build()
        .toByteArray();
  }

  /** Open for writing (and O_TRUNC): takes the lease and marks the file open for write. */
  public OpenResponse openForWrite(Mutation m, Client client, OpenRequest req) throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    Inode file = ns.target(m, caller, "open", path, req.getInodeId(), true);
    NamespaceReads.checkRegular("open", path, file);
    ns.check(caller, "open", path, file, Access.ofBits(Access.READ.bits() | Access.WRITE.bits()));
    checkNotWrittenByOther("open", path, file, client);
    ns.leases.acquire(file.id(), client.id(), client.name());
    InodeRecord.Builder r = file.record().toBuilder().setOpenForWrite(writer(client));
    if (req.getTruncate() && file.record().getSize() > 0) {
      truncate(m, file, r, 0);
    }
    Inode updated = file.with(r.build());
    m.putInode(updated);
    OpenResponse.Builder out =
        reads.open(
            m,
            client,
            updated,
            req.getMaxChunkSets(),
            CapabilityToken.READ | CapabilityToken.WRITE,
            false);
    return out.setLease(lease(file.id())).build();
  }

  private void checkNotWrittenByOther(String op, String path, Inode file, Client client)
      throws IOException {
    var held = ns.leases.get(file.id());
    if (held.isPresent() && !held.get().holder().equals(client.id())) {
      throw Resolver.fail(
          Status.LEASE_CONFLICT, op + " " + path + ": being written by " + held.get().holderName());
    }
  }

  private void acquire(long fileId, Client client) {
    try {
      ns.leases.acquire(fileId, client.id(), client.name());
    } catch (IOException e) {
      // A brand-new inode has no lease; this cannot happen.
      throw new IllegalStateException(e);
    }
  }

  private static OpenForWrite writer(Client client) {
    return OpenForWrite.newBuilder()
        .setWriterClientId(ByteString.copyFrom(client.id().toBytes()))
        .setClientName(client.name())
        .build();
  }

  private LeaseInfo lease(long fileId) {
    return LeaseInfo.newBuilder()
        .setInodeId(fileId)
        .setTtlMs((int) Math.min(Integer.MAX_VALUE, ns.leases.softLimit().toMillis()))
        .build();
  }

  // ---- setattr ----------------------------------------------------------------------------------

  public SetAttrResponse setAttr(Mutation m, Client client, SetAttrRequest req) throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    if ((req.hasUser() && req.hasUid()) || (req.hasGroup() && req.hasGid())) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "setattr " + path + ": an owner by name and by number at once");
    }
    if ((req.hasAtimeNs() && req.getAtimeNow()) || (req.hasMtimeNs() && req.getMtimeNow())) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "setattr " + path + ": an explicit time and 'now' at once");
    }
    if (req.hasMode() && (req.getMode() & ~07777) != 0) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "setattr " + path + ": mode " + Integer.toOctalString(req.getMode()) + " beyond 07777");
    }
    Inode inode = ns.target(m, caller, "setattr", path, req.getInodeId(), false);
    InodeRecord.Builder r = inode.record().toBuilder();
    boolean changed = false;
    if (req.hasSize()) {
      if (inode.isDirectory()) {
        throw Resolver.fail(Status.IS_DIRECTORY, "truncate " + path + ": is a directory");
      }
      if (inode.isSymlink()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, "truncate " + path + ": a symlink has no size");
      }
      if (inode.isSpecial()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT,
            "truncate " + path + ": not a regular file but " + inode.kind());
      }
      if (!ns.opensForWriting(client, inode, req.getWriteToken())) {
        ns.check(caller, "truncate", path, inode, Access.WRITE);
      }
      checkNotWrittenByOther("truncate", path, inode, client);
      if (req.getSize() != inode.record().getSize()) {
        truncate(m, inode, r, req.getSize());
      }
      changed = true;
    }
    if (req.hasMode()) {
      ns.permissions.checkOwnerOrSuper(caller, "chmod", path, inode.permission());
      r.setMode(req.getMode());
      changed = true;
    }
    if (req.getKillSetid()) {
      if (req.hasMode()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, "setattr " + path + ": kill_setid together with a mode");
      }
      ns.check(caller, "clear set-id bits of", path, inode, Access.WRITE);
      int mode = r.getMode() & ~04000;
      r.setMode((mode & 010) != 0 ? mode & ~02000 : mode);
      changed = true;
    }
    if (req.hasUser() || req.hasGroup()) {
      ns.permissions.checkSetOwner(
          caller,
          "chown",
          path,
          inode.permission(),
          req.hasUser() ? req.getUser() : null,
          req.hasGroup() ? req.getGroup() : null);
      if (req.hasUser()) {
        r.setUser(req.getUser());
      }
      if (req.hasGroup()) {
        r.setGroup(req.getGroup());
      }
      changed = true;
    }
    if (req.hasUid() || req.hasGid()) {
      if (req.hasUid()
          && req.getUid() != inode.record().getUid()
          && ns.permissions.enabled()
          && !ns.permissions.isSuperuser(caller)) {
        throw Resolver.fail(
            Status.PERMISSION_DENIED, "chown " + path + ": only a superuser may change owners");
      }
      ns.permissions.checkOwnerOrSuper(caller, "chown", path, inode.permission());
      if (req.hasUid()) {
        r.setUid(req.getUid());
      }
      if (req.hasGid()) {
        r.setGid(req.getGid());
      }
      changed = true;
    }
    boolean times = req.hasAtimeNs() || req.hasMtimeNs() || req.getAtimeNow() || req.getMtimeNow();
    if (times) {
      ns.permissions.checkSetTimes(
          caller, "utimes", path, inode.permission(), req.hasAtimeNs() || req.hasMtimeNs());
      if (req.hasAtimeNs()) {
        r.setAtimeNs(req.getAtimeNs());
      }
      if (req.getAtimeNow()) {
        r.setAtimeNs(m.nowNs());
      }
      if (req.hasMtimeNs()) {
        r.setMtimeNs(req.getMtimeNs());
      }
      if (req.getMtimeNow()) {
        r.setMtimeNs(m.nowNs());
      }
      changed = true;
    }
    if (changed) {
      r.setCtimeNs(m.nowNs());
    }
    Inode updated = inode.with(r.build());
    m.putInode(updated);
    return SetAttrResponse.newBuilder().setAttributes(Attrs.of(updated)).build();
  }

  /**
   * Sets the size in {@code r} to {@code size}. Shrinking bumps the generation (tokens issued
   * before stop working), releases chunks wholly past the end into the deletion queue and shortens
   * the committed length of cut ones; growing leaves a hole that reads as zeros.
   */
  private void truncate(Mutation m, Inode file, InodeRecord.Builder r, long size)
      throws IOException {
    long old = file.record().getSize();
    r.setSize(size).setMtimeNs(m.nowNs());
    if (size >= old) {
      return;
    }
    r.setGeneration(file.record().getGeneration() + 1);
    Layout layout = Attrs.layout(file.record().getLayout());
    int width = layout.stripeWidth();
    long allocated = allocatedBytes(m, file);
    List<DeletionQueue.Chunk> gone = new ArrayList<>();
    byte[] cursor = null;
    do {
      ScanPage page = m.scan(ColumnFamily.CHUNKS, Keys.chunkPrefix(file.id()), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        long index = Integer.toUnsignedLong(Keys.chunkIndex(e.key()));
        ChunkRecord c = Records.decodeChunk(e.key(), e.value());
        long keep = layout.chunkLength(size, index / width, (int) (index % width));
        if (keep == 0) {
          m.delete(ColumnFamily.CHUNKS, e.key());
          allocated -= c.getLengthBytes();
          gone.add(
              new DeletionQueue.Chunk((int) index, c.getVersion(), c.getReplicaServerIdsList()));
        } else if (c.getLengthBytes() > keep) {
          allocated -= c.getLengthBytes() - keep;
          m.put(
              ColumnFamily.CHUNKS,
              e.key(),
              Records.encode(c.toBuilder().setLengthBytes(keep).build()));
        }
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    r.setAllocatedBytes(Math.max(0, allocated));
    if (!gone.isEmpty()) {
      ns.deletions.enqueue(m, file.id(), gone);
    }
  }

  /**
   * The bytes {@code file}'s chunks hold before {@code m} changes any of them: its record's {@code
   * allocated_bytes}, or for a record written before that field existed, the sum of its chunks'
   * committed lengths (read once: the record then keeps it). Call it before {@code m} writes a
   * chunk of the file, as {@link Mutation#scan} does not see the mutation's own writes.
   */
  long allocatedBytes(Mutation m, Inode file) throws IOException {
    if (file.record().hasAllocatedBytes()) {
      return file.record().getAllocatedBytes();
    }
    long sum = 0;
    byte[] cursor = null;
    do {
      ScanPage page = m.scan(ColumnFamily.CHUNKS, Keys.chunkPrefix(file.id()), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        sum += Records.decodeChunk(e.key(), e.value()).getLengthBytes();
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    return sum;
  }

  // ---- writing ----------------------------------------------------------------------------------

  /** The file of a writer's handle-based call, after checking the caller holds its lease. */
  private Inode written(Mutation m, Client client, String op, String path, long inodeId)
      throws IOException {
    Inode file = Tree.handle(m, inodeId, path.isEmpty() ? "inode " + inodeId : path);
    NamespaceReads.checkRegular(op, path, file);
    ns.leases.checkHolder(file.id(), client.id());
    return file;
  }

  /**
   * Marks the file's data as changed now (mtime and ctime), as a write(2) does. Every report of
   * written chunks (hflush, a finished chunk set, the commit) is one: the writer reports a chunk
   * only after it took new bytes or a new replica, so a rewrite in place that keeps the size moves
   * mtime too (other clients' caches, rsync and make compare it), and an open that wrote nothing
   * does not.
   */
  private static InodeRecord.Builder modified(Mutation m, InodeRecord.Builder r) {
    return r.setMtimeNs(m.nowNs()).setCtimeNs(m.nowNs());
  }

  /**
   * Records the reported versions and lengths of {@code chunks} of {@code file}, and returns the
   * file's allocated bytes afterwards (its chunks' committed lengths summed), for the caller to
   * write into the file's record with the rest of its change.
   */
  long commitChunks(Mutation m, Inode file, String op, List<ChunkState> chunks) throws IOException {
    long allocated = allocatedBytes(m, file);
    for (ChunkState cs : chunks) {
      long index = Integer.toUnsignedLong(cs.getId().getChunkIndex());
      if (cs.getId().getInodeId() != file.id()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT,
            op + ": chunk " + cs.getId() + " is not a chunk of inode " + file.id());
      }
      ChunkRecord c = ns.chunk(m, file.id(), index);
      if (c == null || c.getVersion() != cs.getVersion()) {
        throw Resolver.fail(
            Status.STALE_VERSION,
            op
                + ": chunk "
                + index
                + " of inode "
                + file.id()
                + " version "
                + cs.getVersion()
                + " was not issued"
                + (c == null ? "" : " (current " + c.getVersion() + ")"));
      }
      long max = file.record().getLayout().getChunkSizeBytes();
      if (cs.getLength() > max) {
        throw Resolver.fail(
            Status.OUT_OF_RANGE,
            op
                + ": chunk "
                + index
                + " length "
                + cs.getLength()
                + " beyond the chunk size "
                + max);
      }
      allocated += cs.getLength() - c.getLengthBytes();
      m.put(
          ColumnFamily.CHUNKS,
          Keys.chunk(file.id(), (int) index),
          Records.encode(c.toBuilder().setLengthBytes(cs.getLength()).build()));
    }
    return Math.max(0, allocated);
  }

  public CommitResponse commit(Mutation m, Client client, CommitRequest req) throws IOException {
    String path = req.getPath();
    Inode file = written(m, client, "commit", path, req.getInodeId());
    long allocated = commitChunks(m, file, "commit " + path, req.getChunksList());
    InodeRecord.Builder r =
        file.record().toBuilder()
            .clearOpenForWrite()
            .setSize(req.getLength())
            .setAllocatedBytes(allocated);
    if (req.getLength() != file.record().getSize() || req.getChunksCount() > 0) {
      modified(m, r);
    }
    Inode closed = file.with(r.build());
    m.putInode(closed);
    ns.closed(m, file.id());
    m.afterApply(() -> release(file.id(), client));
    return CommitResponse.newBuilder().setAttributes(Attrs.of(closed)).build();
  }

  void release(long fileId, Client client) {
    try {
      ns.leases.release(fileId, client.id());
    } catch (IOException e) {
      LOG.warn("{}: releasing the lease of inode {}: {}", ns.id, fileId, e.getMessage());
    }
  }

  public UpdateLengthResponse updateLength(Mutation m, Client client, UpdateLengthRequest req)
      throws IOException {
    String path = req.getPath();
    Inode file = written(m, client, "hflush", path, req.getInodeId());
    long allocated = commitChunks(m, file, "hflush " + path, req.getChunksList());
    if (req.getLength() > file.record().getSize() || req.getChunksCount() > 0) {
      InodeRecord.Builder r = file.record().toBuilder().setAllocatedBytes(allocated);
      r.setSize(Math.max(req.getLength(), file.record().getSize()));
      m.putInode(file.with(modified(m, r).build()));
    }
    ns.leases.renew(client.id());
    return UpdateLengthResponse.newBuilder().setLease(lease(file.id())).build();
  }

  public AllocateChunkSetResponse allocateChunkSet(
      Mutation m, Client client, AllocateChunkSetRequest req) throws IOException {
    String path = req.getPath();
    Inode file = written(m, client, "allocate", path, req.getInodeId());
    long allocated = commitChunks(m, file, "allocate " + path, req.getFinishedChunksList());
    if (req.getFinishedChunksCount() > 0) {
      file = file.with(modified(m, file.record().toBuilder().setAllocatedBytes(allocated)).build());
      m.putInode(file);
    }
    LayoutRecord layout = file.record().getLayout();
    long maxSet = (0xFFFF_FFFFL + 1) / layout.getStripeWidth();
    if (req.getSetIndex() >= maxSet) {
      throw Resolver.fail(
          Status.OUT_OF_RANGE,
          "allocate " + path + ": chunk set " + req.getSetIndex() + " beyond " + (maxSet - 1));
    }
    ChunkSetLocation loc = ns.chunkSetOrNull(m, file.id(), layout, req.getSetIndex());
    if (loc == null || loc.getChunksCount() < layout.getStripeWidth()) {
      loc = ns.allocateSet(m, file.id(), layout, req.getSetIndex(), client.host(), false);
    }
    ns.leases.renew(client.id());
    return AllocateChunkSetResponse.newBuilder()
        .setChunkSet(loc)
        .setToken(
            ByteString.copyFrom(
                ns.token(client, file, CapabilityToken.READ | CapabilityToken.WRITE)))
        .setLease(lease(file.id()))
        .build();
  }

  public ReplaceReplicaResponse replaceReplica(Mutation m, Client client, ReplaceReplicaRequest req)
      throws IOException {
    String path = req.getPath();
    Inode file = written(m, client, "replace", path, req.getInodeId());
    long index = Integer.toUnsignedLong(req.getChunk().getChunkIndex());
    ChunkRecord c = ns.chunk(m, file.id(), index);
    if (c == null || c.getVersion() != req.getVersion()) {
      throw Resolver.fail(
          Status.STALE_VERSION,
          "replace " + path + ": chunk " + index + " is not at version " + req.getVersion());
    }
    List<Integer> holders = new ArrayList<>(c.getReplicaServerIdsList());
    holders.remove(Integer.valueOf(req.getFailedServerId()));
    List<Integer> avoid = new ArrayList<>(holders);
    avoid.addAll(req.getExcludedServerIdsList());
    try {
      DataServer chosen =
          ns.placement.chooseReplacement(
              Attrs.layout(file.record().getLayout()), avoid, req.getFailedServerId());
      holders.add(chosen.id());
    } catch (IOException e) {
      LOG.info("{}: replace {} chunk {}: no replacement: {}", ns.id, path, index, e.getMessage());
      // Short of a replica now: re-replicated as soon as the file is closed.
      long fid = file.id();
      m.afterApply(() -> ns.replicateAtClose(fid));
    }
    long allocated = allocatedBytes(m, file);
    ChunkRecord updated =
        ChunkRecord.newBuilder()
            .setVersion(ns.counters.newVersion(m))
            .setLengthBytes(Math.min(c.getLengthBytes(), req.getAckedLength()))
            .addAllReplicaServerIds(holders)
            .build();
    m.put(ColumnFamily.CHUNKS, Keys.chunk(file.id(), (int) index), Records.encode(updated));
    if (updated.getLengthBytes() != c.getLengthBytes() || !file.record().hasAllocatedBytes()) {
      long shorter = c.getLengthBytes() - updated.getLengthBytes();
      m.putInode(
          file.with(
              file.record().toBuilder()
                  .setAllocatedBytes(Math.max(0, allocated - shorter))
                  .build()));
    }
    return ReplaceReplicaResponse.newBuilder()
        .setChunk(ns.location(file.id(), index, updated))
        .setToken(
            ByteString.copyFrom(
                ns.token(client, file, CapabilityToken.READ | CapabilityToken.WRITE)))
        .build();
  }

  // ---- leases -----------------------------------------------------------------------------------

  public RenewLeaseResponse renewLease(Client client) {
    Renewal r = ns.leases.renew(client.id());
    return RenewLeaseResponse.newBuilder()
        .setTtlMs((int) Math.min(Integer.MAX_VALUE, r.ttl().toMillis()))
        .addAllLostInodeIds(r.lostFileIds())
        .build();
  }

  /**
   * Takes over the lease of a file whose writer died and closes it at its committed length (the
   * length the writer last reported; asking replicas for more comes with the data servers).
   */
  public RecoverLeaseResponse recoverLease(Mutation m, Client client, RecoverLeaseRequest req)
      throws IOException {
    String path = req.getPath();
    Inode file =
        ns.resolver.resolve(m, client.caller(), "recoverlease", BraidPath.parse(path), true);
    NamespaceReads.checkRegular("recoverlease", path, file);
    ns.check(client.caller(), "recoverlease", path, file, Access.WRITE);
    RecoveryOutcome outcome = ns.leases.recover(file.id(), client.id());
    if (outcome == RecoveryOutcome.IN_PROGRESS) {
      return RecoverLeaseResponse.newBuilder()
          .setClosed(false)
          .setAttributes(Attrs.of(file))
          .build();
    }
    Inode closed = file;
    if (file.record().hasOpenForWrite()) {
      closed =
          file.with(file.record().toBuilder().clearOpenForWrite().setCtimeNs(m.nowNs()).build());
      m.putInode(closed);
      ns.closed(m, file.id());
    }
    if (outcome == RecoveryOutcome.STARTED) {
      m.afterApply(() -> ns.leases.completeRecovery(file.id()));
    }
    return RecoverLeaseResponse.newBuilder()
        .setClosed(true)
        .setAttributes(Attrs.of(closed))
        .build();
  }
}
