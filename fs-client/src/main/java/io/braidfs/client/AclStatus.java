package io.braidfs.client;

import io.braidfs.common.acl.AclEntry;
import java.util.List;

/**
 * An inode's ACL as Hadoop's {@code AclStatus} gives it: owner, group, the mode (whose group bits
 * are the mask when the ACL is extended) and the stored entries (for an extended access ACL its
 * named users, owning group and named groups; a directory's whole default ACL).
 *
 * <p>Thread-safety: immutable.
 *
 * @param mode the permission bits, 07777
 */
public record AclStatus(String owner, String group, int mode, List<AclEntry> entries) {
  public AclStatus {
    entries = List.copyOf(entries);
  }
}
