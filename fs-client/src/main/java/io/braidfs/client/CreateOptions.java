package io.braidfs.client;

import io.braidfs.proto.LayoutSpec;

/**
 * How {@link BraidClient#create} makes a file.
 *
 * <p>Thread-safety: immutable.
 *
 * @param mode permission bits (07777) before the client's umask is applied
 * @param overwrite replace an existing file (a new inode); false fails with ALREADY_EXISTS
 * @param createParents create missing ancestor directories (false: createNonRecursive, O_CREAT)
 * @param layout a per-file layout; 0 fields inherit the directory's policy
 */
public record CreateOptions(int mode, boolean overwrite, boolean createParents, LayoutSpec layout) {
  /** Mode 0666 (then the umask), no overwrite, parents created, the inherited layout. */
  public static CreateOptions defaults() {
    return new CreateOptions(0666, false, true, LayoutSpec.getDefaultInstance());
  }

  public CreateOptions withMode(int newMode) {
    return new CreateOptions(newMode, overwrite, createParents, layout);
  }

  public CreateOptions withOverwrite(boolean newOverwrite) {
    return new CreateOptions(mode, newOverwrite, createParents, layout);
  }

  public CreateOptions withCreateParents(boolean newCreateParents) {
    return new CreateOptions(mode, overwrite, newCreateParents, layout);
  }

  public CreateOptions withLayout(LayoutSpec newLayout) {
    return new CreateOptions(mode, overwrite, createParents, newLayout);
  }
}
