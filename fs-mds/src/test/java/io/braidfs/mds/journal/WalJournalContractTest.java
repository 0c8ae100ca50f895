package io.braidfs.mds.journal;

import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.StoreOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The journal contract for the single-MDS journal, the RocksDB WAL. */
class WalJournalContractTest extends JournalContract {
  @TempDir Path dir;

  @Override
  protected Opened open() throws Exception {
    BraidConfig config = BraidConfig.defaults();
    RocksMetadataStore store =
        new RocksMetadataStore("mds-c", StoreOptions.from(config).withDir(dir));
    store.start();
    WalJournal j = new WalJournal("mds-c", store, config, Clock.system());
    j.start();
    return new Opened(
        j,
        store,
        () -> {
          j.close();
          store.close();
        });
  }
}
