package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.mds.access.Acls;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.proto.GetAclRequest;
import io.braidfs.proto.GetAclResponse;
import io.braidfs.proto.SetAclRequest;
import io.braidfs.proto.SetAclResponse;
import java.io.IOException;
import java.util.List;

/**
 * POSIX ACLs on inodes (Hadoop's ACL methods, setfacl and getfacl): the change on the mutation
 * thread, the read on any; the rules are {@link Acls}', the checks {@link
 * io.braidfs.mds.access.Permissions}'.
 *
 * <p>Thread-safety: {@link #setAcl} on the mutation thread; {@link #getAcl} on any.
 */
public final class AclOps {
  private final Namespace ns;

  public AclOps(Namespace ns) {
    this.ns = ns;
  }

  /** Changes an inode's ACL; its owner or a superuser may, as chmod. */
  public SetAclResponse setAcl(Mutation m, Client client, SetAclRequest req) throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    Acls.Op op =
        switch (req.getOp()) {
          case ACL_OP_MODIFY -> Acls.Op.MODIFY;
          case ACL_OP_REMOVE_ENTRIES -> Acls.Op.REMOVE_ENTRIES;
          case ACL_OP_REMOVE_DEFAULT -> Acls.Op.REMOVE_DEFAULT;
          case ACL_OP_REMOVE -> Acls.Op.REMOVE;
          case ACL_OP_SET -> Acls.Op.SET;
          case ACL_OP_UNSPECIFIED, UNRECOGNIZED ->
              throw Resolver.fail(
                  Status.INVALID_ARGUMENT, "setfacl " + path + ": no or an unknown ACL operation");
        };
    Inode inode = ns.target(m, caller, "setfacl", path, 0, true);
    ns.permissions.checkOwnerOrSuper(caller, "setfacl", path, inode.permission());
    InodeRecord r = inode.record();
    Acls.Stored changed;
    try {
      changed =
          Acls.apply(
              new Acls.Stored(r.getMode(), AclRecords.fromRecords(r.getAclList())),
              inode.isDirectory(),
              op,
              AclRecords.fromWire(req.getEntriesList()));
    } catch (IllegalArgumentException e) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, "setfacl " + path + ": " + e.getMessage());
    }
    int mode = changed.mode();
    boolean access =
        op == Acls.Op.REMOVE || req.getEntriesList().stream().anyMatch(e -> !e.getDefaultScope());
    if (access
        && (mode & 02000) != 0
        && !caller.isMemberOf(r.getGroup())
        && !ns.permissions.isSuperuser(caller)) {
      mode &= ~02000; // Linux's rule (posix_acl_update_mode): as a chmod by a non-member would
    }
    Inode updated =
        inode.with(
            r.toBuilder()
                .setMode(mode)
                .clearAcl()
                .addAllAcl(AclRecords.toRecords(changed.entries()))
                .setCtimeNs(m.nowNs())
                .build());
    m.putInode(updated);
    return SetAclResponse.newBuilder().setAttributes(Attrs.of(updated)).build();
  }

  /** An inode's ACL in Hadoop's AclStatus form; whoever may look the path up may read it. */
  public GetAclResponse getAcl(Caller caller, GetAclRequest req) throws IOException {
    Inode inode = ns.target(ns.store, caller, "getfacl", req.getPath(), 0, true);
    InodeRecord r = inode.record();
    List<io.braidfs.proto.AclEntry> entries =
        AclRecords.toWire(AclRecords.fromRecords(r.getAclList()));
    return GetAclResponse.newBuilder()
        .setOwner(r.getUser())
        .setGroup(r.getGroup())
        .setMode(r.getMode())
        .addAllEntries(entries)
        .build();
  }
}
