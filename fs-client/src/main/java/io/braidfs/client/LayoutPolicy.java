package io.braidfs.client;

/**
 * A layout as a file asks for it at create ({@link CreateOptions#layout()}) or as a directory's
 * policy holds it ({@link BraidClient#setLayoutPolicy}): a field of 0 is not set, and new files
 * inherit it from the directory's policy, then its ancestors', then the MDS's defaults. Effective
 * layouts ({@link DirectoryLayout#effective()}, {@link ServerDefaults#defaultLayout()}) have every
 * field set. The MDS checks the values (INVALID_ARGUMENT); a file's resolved layout is {@link
 * FileAttributes#layout()}.
 *
 * <p>Thread-safety: immutable.
 *
 * @param stripeUnit bytes of consecutive file data in one chunk before the next chunk of the set (a
 *     multiple of the 64 KiB checksum block), or 0
 * @param stripeWidth the number of chunks in a chunk set, over which stripe units rotate, or 0
 * @param chunkSize the most bytes one chunk holds (a multiple of the stripe unit), or 0
 * @param replication the number of replicas of every chunk, or 0
 */
public record LayoutPolicy(int stripeUnit, int stripeWidth, long chunkSize, int replication) {
  private static final LayoutPolicy INHERIT = new LayoutPolicy(0, 0, 0, 0);

  /** Every field inherited. */
  public static LayoutPolicy inherit() {
    return INHERIT;
  }

  public LayoutPolicy withStripeUnit(int newStripeUnit) {
    return new LayoutPolicy(newStripeUnit, stripeWidth, chunkSize, replication);
  }

  public LayoutPolicy withStripeWidth(int newStripeWidth) {
    return new LayoutPolicy(stripeUnit, newStripeWidth, chunkSize, replication);
  }

  public LayoutPolicy withChunkSize(long newChunkSize) {
    return new LayoutPolicy(stripeUnit, stripeWidth, newChunkSize, replication);
  }

  public LayoutPolicy withReplication(int newReplication) {
    return new LayoutPolicy(stripeUnit, stripeWidth, chunkSize, newReplication);
  }
}
