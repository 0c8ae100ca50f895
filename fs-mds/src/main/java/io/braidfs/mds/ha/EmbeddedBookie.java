package io.braidfs.mds.ha;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.HostPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.bookkeeper.bookie.storage.ldb.DbLedgerStorage;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.bookkeeper.server.EmbeddedServer;
import org.apache.bookkeeper.server.conf.BookieConfiguration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A BookKeeper bookie inside this JVM (BookKeeper's own {@link EmbeddedServer}, the path its {@code
 * bookie} command takes), configured as research/bookkeeper-spike.md measured: the journal is
 * synced before an entry is acknowledged but flushed as soon as its queue empties (not after the 2
 * ms group wait, which dominated single-append latency), DbLedgerStorage with explicit, small
 * caches (the defaults take half the JVM's direct memory), loopback allowed, and a registration
 * timeout equal to the MDS session timeout so a dead bookie leaves the available list as quickly as
 * a dead leader leaves the election.
 *
 * <p>Thread-safety: thread-safe (start and close once).
 */
public final class EmbeddedBookie implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBookie.class);

  private final String id;
  private final ServerConfiguration conf;
  private final InetSocketAddress address;
  private @Nullable EmbeddedServer server;

  /**
   * @param address host:port the bookie listens on and is known by (its identity)
   * @param dir its journal and ledger directories
   */
  public EmbeddedBookie(
      String id,
      String metadataServiceUri,
      InetSocketAddress address,
      Path dir,
      Duration sessionTimeout) {
    this.id = id;
    this.address = address;
    ServerConfiguration c = new ServerConfiguration();
    c.setMetadataServiceUri(metadataServiceUri);
    c.setBookiePort(address.getPort());
    c.setAllowLoopback(true);
    c.setAdvertisedAddress(address.getHostString());
    c.setListeningInterface(null);
    c.setJournalDirName(dir.resolve("journal").toString());
    c.setLedgerDirNames(new String[] {dir.resolve("ledgers").toString()});
    c.setLedgerStorageClass(DbLedgerStorage.class.getName());
    c.setProperty("dbStorage_writeCacheMaxSizeMb", 16);
    c.setProperty("dbStorage_readAheadCacheMaxSizeMb", 8);
    c.setProperty("dbStorage_rocksDB_blockCacheSize", 8L << 20);
    c.setProperty("journalPreAllocSizeMB", 4);
    c.setJournalSyncData(true);
    c.setJournalFlushWhenQueueEmpty(true);
    c.setZkTimeout((int) sessionTimeout.toMillis());
    c.setHttpServerEnabled(false);
    c.setStatisticsEnabled(false);
    // One bookie per MDS: a spare disk check thread and auto-recovery have nothing to move to.
    c.setAutoRecoveryDaemonEnabled(false);
    c.setDiskUsageThreshold(0.99f);
    c.setDiskUsageWarnThreshold(0.98f);
    this.conf = c;
  }

  /** Parses {@code braid.mds.ha.bookie.address}. */
  static InetSocketAddress parseAddress(String value) {
    return HostPort.parseSetting(MdsHaConfigKeys.BOOKIE_ADDRESS.name(), value);
  }

  @Override
  public void start() throws IOException {
    try {
      Files.createDirectories(Path.of(conf.getJournalDirNames()[0]));
      Files.createDirectories(Path.of(conf.getLedgerDirNames()[0]));
      EmbeddedServer s = EmbeddedServer.builder(new BookieConfiguration(conf)).build();
      server = s;
      s.getLifecycleComponentStack().start();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      close();
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE, id + ": cannot start the bookie on " + address + ": " + e);
    }
    LOG.info("{}: bookie serving on {}", id, address);
  }

  /** host:port the bookie is known by. */
  public InetSocketAddress address() {
    return address;
  }

  @Override
  public void close() {
    EmbeddedServer s = server;
    server = null;
    if (s != null) {
      try {
        s.getLifecycleComponentStack().close();
      } catch (RuntimeException e) {
        LOG.warn("{}: stopping the bookie: {}", id, e.toString());
      }
    }
  }

  @Override
  public String toString() {
    return "EmbeddedBookie{" + id + " at " + address + "}";
  }
}
