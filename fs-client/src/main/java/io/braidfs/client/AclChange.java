package io.braidfs.client;

/** Which ACL change {@link BraidClient#setAcl} makes (setfacl's options, Hadoop's methods). */
public enum AclChange {
  /** Add or replace the entries given (setfacl -m, modifyAclEntries). */
  MODIFY,
  /** Remove the entries given, whatever their permissions (setfacl -x, removeAclEntries). */
  REMOVE_ENTRIES,
  /** Remove the default ACL (setfacl -k, removeDefaultAcl). */
  REMOVE_DEFAULT,
  /** Remove every extended entry and the default ACL (setfacl -b, removeAcl). */
  REMOVE,
  /** Replace the scopes the entries include (setfacl --set, setAcl). */
  SET
}
