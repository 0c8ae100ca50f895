package io.braidfs.mds.ha;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.mds.journal.JournalRecord;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.StoreException;
import io.braidfs.mds.store.proto.JournalEntry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.bookkeeper.client.BKException;
import org.apache.bookkeeper.client.api.BookKeeper;
import org.apache.bookkeeper.client.api.DigestType;
import org.apache.bookkeeper.client.api.LedgerEntries;
import org.apache.bookkeeper.client.api.LedgerEntry;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.apache.bookkeeper.client.api.WriteHandle;
import org.apache.bookkeeper.conf.ClientConfiguration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal's BookKeeper client: creates a term's ledger, opens ledgers to read or to recover
 * them, and turns entries into {@link JournalRecord}s. One entry holds one or more consecutive
 * records (the leader groups those appended while earlier entries are out), each as its length (4
 * bytes), its index (8 bytes, big-endian) and the record exactly as the store's journal family
 * keeps it ({@link Records#encodeJournalEntry}), so a replica applying it writes the same bytes the
 * leader wrote. Entry ids therefore do not follow record indexes: readers find a record by reading
 * its ledger from the start, or from where they last stopped.
 *
 * <p>Client settings from research/bookkeeper-spike.md: {@code delayEnsembleChange} (with three
 * bookies there is no spare, and without it one lost bookie stops the writer and makes recovery
 * fail), no client throttle (its default caps a ledger at 5,000 appends/s), CRC32C digests. A
 * ledger is created on {@code braid.mds.ha.ensemble} bookies, or, while fewer are up, on as many as
 * are (never fewer than the ack quorum).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Ledgers implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(Ledgers.class);

  /** Ledger password: ledgers are protected by ZooKeeper ACLs and the network, not this. */
  private static final byte[] PASSWORD = "braid-journal".getBytes(StandardCharsets.US_ASCII);

  /**
   * Custom metadata naming a ledger's entry format: {@link #GROUPED} entries hold one or more
   * records each, length first; a ledger without it (written before grouping) holds one record per
   * entry, without a length.
   */
  static final String FORMAT = "braid-format";

  static final byte[] GROUPED = "2".getBytes(StandardCharsets.US_ASCII);

  /** The longest one BookKeeper operation may take before it counts as failed. */
  static final Duration OP_TIMEOUT = Duration.ofSeconds(30);

  private final String id;
  private final String metadataServiceUri;
  private final int ensemble;
  private final int ackQuorum;
  private final Duration sessionTimeout;
  private @Nullable BookKeeper bk;

  public Ledgers(
      String id, String metadataServiceUri, int ensemble, int ackQuorum, Duration sessionTimeout) {
    if (ackQuorum > ensemble) {
      throw new IllegalArgumentException(
          MdsHaConfigKeys.ACK_QUORUM.name()
              + " ("
              + ackQuorum
              + ") must not exceed "
              + MdsHaConfigKeys.ENSEMBLE.name()
              + " ("
              + ensemble
              + ")");
    }
    this.id = id;
    this.metadataServiceUri = metadataServiceUri;
    this.ensemble = ensemble;
    this.ackQuorum = ackQuorum;
    this.sessionTimeout = sessionTimeout;
  }

  @Override
  public void start() throws IOException {
    ClientConfiguration c = new ClientConfiguration();
    c.setMetadataServiceUri(metadataServiceUri);
    c.setDelayEnsembleChange(true);
    c.setThrottleValue(0);
    c.setZkTimeout((int) sessionTimeout.toMillis());
    // A paused or cut-off bookie answers nothing: a takeover's recovery waits this long for it
    // before going on with the others, so keep it near the session timeout, not BookKeeper's 5 s.
    int timeout = (int) Math.max(1, Math.min(5, sessionTimeout.toSeconds()));
    c.setAddEntryTimeout(timeout);
    c.setReadEntryTimeout(timeout);
    try {
      bk = BookKeeper.newBuilder(c).build();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE, id + ": cannot start the BookKeeper client: " + e);
    }
  }

  /**
   * A new ledger for a term, tagged with its epoch, on {@code braid.mds.ha.ensemble} bookies. While
   * fewer are available it waits for them; after {@code degradeAfter} it settles for as many as
   * there are, down to the ack quorum (research/bookkeeper-spike.md: with three bookies, one down
   * must not stop the journal), and after {@code giveUpAfter} it fails.
   */
  public WriteHandle create(long epoch, Duration degradeAfter, Duration giveUpAfter)
      throws IOException {
    Map<String, byte[]> tags =
        Map.of(
            "braid-epoch",
            Long.toString(epoch).getBytes(StandardCharsets.US_ASCII),
            FORMAT,
            GROUPED);
    long start = System.nanoTime();
    long logged = start;
    while (true) {
      long waited = System.nanoTime() - start;
      int fewest = waited >= degradeAfter.toNanos() ? ackQuorum : ensemble;
      for (int e = ensemble; e >= fewest; e--) {
        try {
          WriteHandle h = create(tags, e);
          LOG.info(
              "{}: created journal ledger {} on bookies {}",
              id,
              h.getId(),
              h.getLedgerMetadata().getAllEnsembles().values());
          if (e < ensemble) {
            LOG.warn(
                "{}: only {} bookies available; journal ledger {} is written to {} instead of {}",
                id,
                e,
                h.getId(),
                e,
                ensemble);
          }
          return h;
        } catch (IOException ex) {
          if (!(ex.getCause() instanceof BKException.BKNotEnoughBookiesException)
              || waited >= giveUpAfter.toNanos()) {
            throw ex;
          }
        }
      }
      if (System.nanoTime() - logged > TimeUnit.SECONDS.toNanos(5)) {
        logged = System.nanoTime();
        LOG.warn("{}: waiting for bookies to create the journal's ledger", id);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(id + ": interrupted waiting for bookies");
      }
    }
  }

  private WriteHandle create(Map<String, byte[]> tags, int size) throws IOException {
    return await(
        bk().newCreateLedgerOp()
            .withEnsembleSize(size)
            .withWriteQuorumSize(size)
            .withAckQuorumSize(ackQuorum)
            .withDigestType(DigestType.CRC32C)
            .withPassword(PASSWORD)
            .withCustomMetadata(tags)
            .execute(),
        "create a journal ledger on " + size + " bookies");
  }

  /**
   * Opens ledger {@code ledgerId} to read it. With {@code recover}, first fences it (its writer can
   * append no more) and closes it at the last entry a quorum has, which is every acknowledged one.
   */
  public ReadHandle open(long ledgerId, boolean recover) throws IOException {
    return await(
        bk().newOpenLedgerOp()
            .withLedgerId(ledgerId)
            .withRecovery(recover)
            .withDigestType(DigestType.CRC32C)
            .withPassword(PASSWORD)
            .execute(),
        (recover ? "recover" : "open") + " journal ledger " + ledgerId);
  }

  /**
   * Deletes ledger {@code ledgerId} in the background (a trimmed one: the list no longer names it).
   * A failure only leaves its space behind, and is logged.
   */
  public void delete(long ledgerId) {
    bk().newDeleteLedgerOp()
        .withLedgerId(ledgerId)
        .execute()
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                LOG.info("{}: deleted journal ledger {}", id, ledgerId);
              } else {
                LOG.warn(
                    "{}: cannot delete trimmed journal ledger {}: {}", id, ledgerId, e.toString());
              }
            });
  }

  /** Reads entries {@code first..last} of {@code handle}: their records, in order. */
  public List<JournalRecord> read(ReadHandle handle, long first, long last) throws IOException {
    List<JournalRecord> out = new ArrayList<>((int) (last - first + 1));
    try (LedgerEntries entries =
        await(handle.readAsync(first, last), "read ledger " + handle.getId())) {
      byte[] format = handle.getLedgerMetadata().getCustomMetadata().get(FORMAT);
      boolean grouped = format != null && Arrays.equals(format, GROUPED);
      for (LedgerEntry e : entries) {
        if (grouped) {
          out.addAll(decode(e.getEntryBytes()));
        } else {
          out.add(decodeOne(e.getEntryBytes(), 0, e.getEntryBytes().length));
        }
      }
    }
    return out;
  }

  /** The bytes of {@code record} in a ledger entry: its index, then its body. */
  public static byte[] encode(JournalRecord record) {
    byte[] body = Records.encodeJournalEntry(record.operation(), record.timeNs(), record.batch());
    return ByteBuffer.allocate(8 + body.length).putLong(record.index()).put(body).array();
  }

  /** One ledger entry of consecutive records, each as {@link #encode} made it, length first. */
  public static byte[] entry(List<byte[]> records) {
    int size = 0;
    for (byte[] r : records) {
      size += 4 + r.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    for (byte[] r : records) {
      b.putInt(r.length).put(r);
    }
    return b.array();
  }

  /** The records in one ledger entry, in order. */
  public static List<JournalRecord> decode(byte[] entry) throws StoreException {
    List<JournalRecord> out = new ArrayList<>();
    ByteBuffer b = ByteBuffer.wrap(entry);
    while (b.hasRemaining()) {
      int length = b.remaining() >= 4 ? b.getInt() : -1;
      if (length < 8 || length > b.remaining()) {
        throw new StoreException(
            Status.INTERNAL,
            "malformed journal ledger entry of "
                + entry.length
                + " bytes: a record of "
                + length
                + " bytes at "
                + (b.position() - 4),
            null);
      }
      out.add(decodeOne(entry, b.position(), length));
      b.position(b.position() + length);
    }
    return out;
  }

  /** The record encoded (as {@link #encode} does) in {@code length} bytes from {@code offset}. */
  private static JournalRecord decodeOne(byte[] entry, int offset, int length)
      throws StoreException {
    if (length < 8) {
      throw new StoreException(
          Status.INTERNAL, "journal ledger record of " + length + " bytes", null);
    }
    long index = ByteBuffer.wrap(entry, offset, 8).getLong();
    byte[] key = Keys.journal(index);
    JournalEntry je =
        Records.decodeJournalEntry(key, Arrays.copyOfRange(entry, offset + 8, offset + length));
    return new JournalRecord(
        index, je.getOperation(), je.getTimeNs(), Records.journalBatch(key, je));
  }

  private BookKeeper bk() {
    BookKeeper b = bk;
    if (b == null) {
      throw new IllegalStateException(id + ": BookKeeper client not started");
    }
    return b;
  }

  private <T> T await(CompletableFuture<T> f, String what) throws IOException {
    try {
      return f.get(OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(id + ": interrupted while trying to " + what);
    } catch (ExecutionException e) {
      Throwable c = e.getCause() == null ? e : e.getCause();
      throw new IOException(id + ": cannot " + what + ": " + c, c);
    } catch (TimeoutException e) {
      throw new IOException(
          id + ": cannot " + what + " within " + OP_TIMEOUT.toSeconds() + " s", e);
    }
  }

  @Override
  public void close() {
    BookKeeper b = bk;
    bk = null;
    if (b != null) {
      try {
        b.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        LOG.debug("{}: closing the BookKeeper client: {}", id, e.toString());
      }
    }
  }
}
