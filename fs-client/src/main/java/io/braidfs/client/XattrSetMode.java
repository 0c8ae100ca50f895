package io.braidfs.client;

/**
 * How {@link BraidClient#setXattr} treats an extended attribute that exists or does not: the flags
 * of setxattr(2).
 *
 * <p>Thread-safety: immutable.
 */
public enum XattrSetMode {
  /** Creates the attribute or replaces its value (no flags). */
  CREATE_OR_REPLACE,
  /**
   * Only creates it (XATTR_CREATE): {@link io.braidfs.common.error.PathExistsException} if it
   * exists.
   */
  CREATE,
  /**
   * Only replaces its value (XATTR_REPLACE): {@link java.io.FileNotFoundException} if it does not
   * exist.
   */
  REPLACE
}
