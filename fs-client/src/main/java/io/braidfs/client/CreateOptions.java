package io.braidfs.client;

/**
 * How {@link BraidClient#create} makes a file.
 *
 * <p>Thread-safety: immutable.
 *
 * @param mode permission bits (07777) before the client's umask is applied
 * @param overwrite replace an existing file (a new inode); false fails with ALREADY_EXISTS
 * @param createParents create missing ancestor directories (false: createNonRecursive, O_CREAT)
 * @param layout a per-file layout; 0 fields inherit the directory's policy
 * @param blockSize the block size the file reports ({@link FileAttributes#blockSize()}), in bytes,
 *     kept exactly as given (Hadoop's create argument); 0 to report its chunk set span
 */
public record CreateOptions(
    int mode, boolean overwrite, boolean createParents, LayoutPolicy layout, long blockSize) {
  /**
   * Validates.
   *
   * @throws IllegalArgumentException if {@code blockSize} is negative
   */
  public CreateOptions {
    if (blockSize < 0) {
      throw new IllegalArgumentException("block size must not be negative: " + blockSize);
    }
  }

  /** Mode 0666 (then the umask), no overwrite, parents created, the inherited layout. */
  public static CreateOptions defaults() {
    return new CreateOptions(0666, false, true, LayoutPolicy.inherit(), 0);
  }

  public CreateOptions withMode(int newMode) {
    return new CreateOptions(newMode, overwrite, createParents, layout, blockSize);
  }

  public CreateOptions withOverwrite(boolean newOverwrite) {
    return new CreateOptions(mode, newOverwrite, createParents, layout, blockSize);
  }

  public CreateOptions withCreateParents(boolean newCreateParents) {
    return new CreateOptions(mode, overwrite, newCreateParents, layout, blockSize);
  }

  public CreateOptions withLayout(LayoutPolicy newLayout) {
    return new CreateOptions(mode, overwrite, createParents, newLayout, blockSize);
  }

  /**
   * The block size the file reports, kept exactly; 0 for its chunk set span.
   *
   * @throws IllegalArgumentException if {@code newBlockSize} is negative
   */
  public CreateOptions withBlockSize(long newBlockSize) {
    return new CreateOptions(mode, overwrite, createParents, layout, newBlockSize);
  }
}
