package io.braidfs.mds.journal;

import io.braidfs.mds.store.StoreBatch;

/** {@link JournalContract}'s fixtures for contract tests in other packages. */
public final class JournalContractAccess {
  private JournalContractAccess() {}

  public static StoreBatch create(long ino) {
    return JournalContract.create(ino);
  }
}
