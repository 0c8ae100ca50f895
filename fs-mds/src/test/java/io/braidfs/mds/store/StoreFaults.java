package io.braidfs.mds.store;

import org.rocksdb.RocksDBException;
import org.rocksdb.Status.Code;
import org.rocksdb.Status.SubCode;

/**
 * Reaches the per-instance fault hooks of {@link RocksMetadataStore} from the tests of other
 * packages (the journal): the next write or WAL sync fails as an I/O error would.
 *
 * <p>Thread-safety: stateless.
 */
public final class StoreFaults {
  private StoreFaults() {}

  /** Makes the next write of {@code store} fail with an I/O error saying {@code message}. */
  public static void failNextWrite(RocksMetadataStore store, String message) {
    store.failNextWrite(ioError(message));
  }

  /**
   * Makes the next {@code syncWal} of {@code store} fail with an I/O error saying {@code message}.
   */
  public static void failNextSync(RocksMetadataStore store, String message) {
    store.failNextSync(ioError(message));
  }

  private static RocksDBException ioError(String message) {
    return new RocksDBException(
        message, new org.rocksdb.Status(Code.IOError, SubCode.None, "disk"));
  }
}
