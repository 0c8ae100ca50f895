package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.common.path.BraidPath;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.namespace.Resolver.Slot;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Concat (HDFS concat) on the MDS: appends whole files to a target and removes them.
 *
 * <p>Braid copies the bytes instead of moving chunks. A chunk id names its inode, and that name is
 * in capability tokens, in the data servers' file names and in start-up confirmation, so moving
 * chunks to another inode would need an indirection in all three; and moving whole chunks only
 * works when the target and every source but the last end on a chunk-set boundary with equal
 * layouts, which Hadoop's callers (1 KiB parts) rarely meet. So the client checks the call ({@link
 * #check}), appends each source's bytes to the target under the target's write lease, finalizes
 * them on every replica, and sends the commit of that append ({@link #concat}). One journal record
 * then commits the target's new length and removes the sources (their chunks into the deletion
 * queue): until it is applied the target keeps its old committed length (a dead client's lease is
 * recovered at that length) and every source stays, so no failure loses or half-joins anything.
 *
 * <p>Checks, in this order (the first failure wins, as {@code ConcatRequest} documents): the
 * request, the target's resolution and type, each source's resolution and type in order, the write
 * leases, then permissions; with a commit, the copy's match with the namespace last.
 *
 * <p>Thread-safety: {@link #check} is thread-safe (a read); {@link #concat} runs on the mutation
 * thread.
 */
public final class FileConcat {
  private final Namespace ns;
  private final FileWrites files;

  public FileConcat(Namespace ns, FileWrites files) {
    this.ns = ns;
    this.files = files;
  }

  /** What the checks resolved: the target and each source's slot, in source order. */
  private record Resolved(Inode target, List<Source> sources) {}

  /** A source: its directory, its name there and its inode. */
  private record Source(Inode dir, String name, Inode file) {}

  /**
   * Checks a concat as the namespace stands, with the target closed; changes nothing. Answers the
   * target's and the sources' attributes, which the client copies by and hands back with the
   * commit.
   */
  public ConcatResponse check(Client client, ConcatRequest req) throws IOException {
    Resolved r = resolve(ns.store, client, req, false);
    ConcatResponse.Builder out = ConcatResponse.newBuilder().setAttributes(Attrs.of(r.target()));
    for (Source s : r.sources()) {
      out.addSources(Attrs.of(s.file()));
    }
    return out.build();
  }

  /**
   * Commits the caller's append of the sources to the target and removes the sources, in {@code m};
   * the target's write lease is released once {@code m} is applied.
   */
  public ConcatResponse concat(Mutation m, Client client, ConcatRequest req) throws IOException {
    String what = "concat " + req.getTargetPath();
    if (req.getCheckOnly() || !req.hasCommit()) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, what + ": a concat that changes the namespace needs a commit");
    }
    Resolved r = resolve(m, client, req, true);
    Inode target = r.target();
    CommitRequest commit = req.getCommit();
    if (commit.getInodeId() != target.id()) {
      throw Resolver.fail(
          Status.STALE_HANDLE,
          what + ": the commit is for inode " + commit.getInodeId() + ", the target is " + target);
    }
    if (req.getCopiedSourcesCount() != r.sources().size()) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          what
              + ": "
              + req.getCopiedSourcesCount()
              + " copied sources described for "
              + r.sources().size()
              + " sources");
    }
    long length = target.record().getSize();
    for (int i = 0; i < r.sources().size(); i++) {
      Inode now = r.sources().get(i).file();
      Attributes copied = req.getCopiedSources(i);
      InodeRecord n = now.record();
      if (now.id() != copied.getInodeId()
          || n.getSize() != copied.getSize()
          || n.getGeneration() != copied.getGeneration()
          || n.getMtimeNs() != copied.getMtimeNs()
          || n.getCtimeNs() != copied.getCtimeNs()) {
        throw Resolver.fail(
            Status.STALE_HANDLE,
            what + ": source " + req.getSourcePaths(i) + " changed since it was copied");
      }
      length = Math.addExact(length, n.getSize());
    }
    if (commit.getLength() != length) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          what
              + ": the commit's length "
              + commit.getLength()
              + " is not the target's "
              + target.record().getSize()
              + " plus the sources' lengths ("
              + length
              + ")");
    }
    long allocated = files.commitChunks(m, target, what, commit.getChunksList());
    Inode joined =
        target.with(
            target.record().toBuilder()
                .clearOpenForWrite()
                .setSize(length)
                .setAllocatedBytes(allocated)
                .setMtimeNs(m.nowNs())
                .setCtimeNs(m.nowNs())
                .build());
    m.putInode(joined);
    ns.closed(m, target.id());
    for (Source s : r.sources()) {
      // As unlink: another hard link keeps the inode and its chunks; the last one releases them.
      ns.unlinkEntry(m, s.dir(), s.name(), s.file());
      ns.dropLink(m, s.file());
    }
    m.afterApply(() -> files.release(target.id(), client));
    return ConcatResponse.newBuilder().setAttributes(Attrs.of(joined)).build();
  }

  /**
   * Resolves and checks everything but the copy. {@code writing}: the caller holds the target's
   * lease (the commit); otherwise the target must not be open for writing at all.
   */
  private Resolved resolve(StoreView view, Client client, ConcatRequest req, boolean writing)
      throws IOException {
    Caller caller = client.caller();
    String targetPath = req.getTargetPath();
    String what = "concat " + targetPath;
    if (req.getSourcePathsCount() == 0) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, what + ": no sources");
    }
    Inode target = ns.resolver.resolve(view, caller, "concat", BraidPath.parse(targetPath), true);
    NamespaceReads.checkRegular("concat", targetPath, target);
    List<Source> sources = new ArrayList<>(req.getSourcePathsCount());
    Set<Long> seen = new HashSet<>();
    for (String p : req.getSourcePathsList()) {
      BraidPath path = BraidPath.parse(p);
      if (path.isRoot()) {
        throw Resolver.fail(Status.IS_DIRECTORY, what + ": source /: is a directory");
      }
      Slot s = ns.resolver.slot(view, caller, "concat", path);
      Inode src = s.existing();
      if (src == null) {
        throw Resolver.fail(Status.NOT_FOUND, what + ": source " + path + ": no such entry");
      }
      NamespaceReads.checkRegular("concat " + targetPath + ": source", path.toString(), src);
      if (src.id() == target.id()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, what + ": source " + path + " is the target itself");
      }
      if (!seen.add(src.id())) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, what + ": source " + path + " names a file given already");
      }
      sources.add(new Source(s.dir(), s.name(), src));
    }
    if (writing) {
      ns.leases.checkHolder(target.id(), client.id());
    } else {
      checkClosed(what, targetPath, target);
    }
    for (int i = 0; i < sources.size(); i++) {
      checkClosed(what + ": source", req.getSourcePaths(i), sources.get(i).file());
    }
    ns.check(caller, "concat", targetPath, target, Access.WRITE);
    for (int i = 0; i < sources.size(); i++) {
      String p = req.getSourcePaths(i);
      Source s = sources.get(i);
      ns.check(caller, "concat", p, s.file(), Access.READ);
      // Removing a source is an unlink: write and search on its directory, and the sticky bit.
      ns.permissions.check(
          caller, "concat", p, Resolver.parentOf(p), s.dir().permission(), NamespaceWrites.WX);
      ns.permissions.checkSticky(caller, "concat", p, s.dir().permission(), s.file().permission());
    }
    return new Resolved(target, sources);
  }

  /** LEASE_CONFLICT if {@code file} is open for writing (by anyone, the caller too). */
  private void checkClosed(String what, String path, Inode file) throws IOException {
    var held = ns.leases.get(file.id());
    if (held.isPresent()) {
      throw Resolver.fail(
          Status.LEASE_CONFLICT,
          what + " " + path + ": open for writing by " + held.get().holderName());
    }
  }
}
