package io.braidfs.mds.ha;

import java.io.IOException;

/**
 * A replica's store ends before the journal's first retained record: the records between were
 * deleted with their ledgers, so it cannot catch up by following the journal and must first copy a
 * peer's store ({@link StoreBootstrap}).
 */
public final class StoreTooOldException extends IOException {
  private static final long serialVersionUID = 1L;

  public StoreTooOldException(String id, long storeIndex, long journalFirst) {
    super(
        id
            + ": this replica's store ends at record "
            + storeIndex
            + " but the journal now starts at "
            + journalFirst
            + " (braid.mds.ha.retained-records); it copies a peer's store first");
  }
}
