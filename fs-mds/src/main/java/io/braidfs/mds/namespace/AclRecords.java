package io.braidfs.mds.namespace;

import io.braidfs.common.acl.AclEntry;
import io.braidfs.mds.store.proto.AclEntryRecord;
import io.braidfs.proto.AclEntryType;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts ACL entries between the store's records, the wire's messages and the permission checks'
 * {@link AclEntry}.
 *
 * <p>Thread-safety: stateless.
 */
final class AclRecords {
  private AclRecords() {}

  static List<AclEntry> fromRecords(List<AclEntryRecord> records) {
    List<AclEntry> out = new ArrayList<>(records.size());
    for (AclEntryRecord r : records) {
      out.add(
          new AclEntry(
              r.getDefaultScope(),
              AclEntry.Type.values()[r.getType() - 1],
              r.getName(),
              r.getPermission()));
    }
    return out;
  }

  static List<AclEntryRecord> toRecords(List<AclEntry> entries) {
    List<AclEntryRecord> out = new ArrayList<>(entries.size());
    for (AclEntry e : entries) {
      out.add(
          AclEntryRecord.newBuilder()
              .setDefaultScope(e.defaultScope())
              .setType(e.type().ordinal() + 1)
              .setName(e.name())
              .setPermission(e.permission())
              .build());
    }
    return out;
  }

  /**
   * The entries of a request.
   *
   * @throws IllegalArgumentException naming an entry without a type or with bad fields
   */
  static List<AclEntry> fromWire(List<io.braidfs.proto.AclEntry> wire) {
    List<AclEntry> out = new ArrayList<>(wire.size());
    for (io.braidfs.proto.AclEntry w : wire) {
      AclEntry.Type type =
          switch (w.getType()) {
            case ACL_ENTRY_TYPE_USER -> AclEntry.Type.USER;
            case ACL_ENTRY_TYPE_GROUP -> AclEntry.Type.GROUP;
            case ACL_ENTRY_TYPE_MASK -> AclEntry.Type.MASK;
            case ACL_ENTRY_TYPE_OTHER -> AclEntry.Type.OTHER;
            case ACL_ENTRY_TYPE_UNSPECIFIED, UNRECOGNIZED ->
                throw new IllegalArgumentException("an ACL entry without a type: " + w);
          };
      out.add(new AclEntry(w.getDefaultScope(), type, w.getName(), w.getPermission()));
    }
    return out;
  }

  static List<io.braidfs.proto.AclEntry> toWire(List<AclEntry> entries) {
    List<io.braidfs.proto.AclEntry> out = new ArrayList<>(entries.size());
    for (AclEntry e : entries) {
      out.add(
          io.braidfs.proto.AclEntry.newBuilder()
              .setDefaultScope(e.defaultScope())
              .setType(AclEntryType.forNumber(e.type().ordinal() + 1))
              .setName(e.name())
              .setPermission(e.permission())
              .build());
    }
    return out;
  }
}
