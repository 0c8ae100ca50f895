package io.braidfs.bench.driver;

import io.braidfs.bench.ref.HdfsCluster;
import io.braidfs.client.BraidClient;
import io.braidfs.testing.MiniCluster;
import java.util.List;

/**
 * Experiment 3, the block-size sweep (HA8000, the PVFS-NFS proxy): one client writes a file with
 * application blocks of 8 KiB to 8 MiB in steps of 4x, without and with a sync after every write,
 * closes it (durable), and reads it back in blocks of the same size; Braid against the local disk
 * and HDFS.
 */
final class BlockSizeExperiment implements Experiment {
  /** The application block sizes, 8 KiB to 8 MiB in steps of 4x; experiment 5 sweeps them too. */
  static final List<Integer> BLOCKS =
      List.of(8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20);

  private static final String WRITE = "write, no sync";
  private static final String WRITE_SYNC = "write, sync per write";
  private static final String READ = "read";
  private static final String READ_COLD = "read, cold";
  private static final String HDFS = "HDFS";

  @Override
  public int number() {
    return 3;
  }

  @Override
  public String name() {
    return "block-size";
  }

  @Override
  public String title() {
    return "Block-size sweep";
  }

  private static long size(Run run) {
    return run.size(256L << 20, 2L << 30);
  }

  /** Sync per write: at most this many writes... */
  private static long syncedWrites(Run run) {
    return run.size(256, 4096);
  }

  /** ...and at most this many bytes, so the small blocks do not take hours. */
  private static long syncedSize(Run run) {
    return run.size(32L << 20, 512L << 20);
  }

  /** The file size with a sync after every write of {@code block} bytes. */
  private static long syncedSize(Run run, int block) {
    return Math.min(size(run), Math.min(syncedSize(run), syncedWrites(run) * block));
  }

  @Override
  public String description(Run run) {
    return String.format(
        "One client writes a %s file in application blocks of 8 KiB to 8 MiB (steps of 4x),"
            + " closes it, and reads it back in blocks of the same size; the time includes open"
            + " and close. With a sync per write the file is smaller: %s writes or %s, whichever"
            + " is less (%s at 8 KiB, %s at 8 MiB). %d rounds, the systems alternating. Braid:"
            + " `BraidClient` streams on %s, layout stripe width 4, 1 MiB stripe units, 64 MiB"
            + " chunks; durable at close (every byte on disk before close returns), `hsync` per"
            + " write when syncing. Local disk: a `FileChannel` on the same disk, `force(true)`"
            + " (fsync) at close, `force(false)` (fdatasync) per write when syncing. HDFS: %s;"
            + " the same calls through its `FileSystem` streams (`hsync` per write when syncing)."
            + " Reads come"
            + " from the page cache (Braid: the data servers' page cache, over loopback)%s."
            + " Every read checks each block's ends against the written pattern, and a warm-up"
            + " file per system is compared byte by byte.",
        Transfers.label(size(run)),
        syncedWrites(run),
        Transfers.label(syncedSize(run)),
        Transfers.label(syncedSize(run, BLOCKS.get(0))),
        Transfers.label(syncedSize(run, BLOCKS.get(BLOCKS.size() - 1))),
        rounds(run),
        BraidClusters.description("four"),
        HdfsCluster.describe(SharedReferences.NODES, 1),
        Run.root()
            ? "; \"read, cold\" reads the file again after `sync; echo 3 > drop_caches`"
            : "; not root, so no cold reads");
  }

  private static int rounds(Run run) {
    return run.rounds(3, 3);
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    MiniCluster cluster = BraidClusters.fourServers(run);
    BraidClient client = cluster.newBraidClient("root");
    List<Target> systems =
        List.of(
            new BraidTarget(BraidTarget.SYSTEM, client, "/exp3", BraidTarget.layout(1 << 20, 4)),
            new LocalDiskTarget(run.scratch("exp3-local")),
            new HadoopTarget(HDFS, SharedReferences.hdfs(run).fileSystem(), "/exp3"));
    for (Target t : systems) {
      Transfers.warmUpAndVerify(t, "warm-up", 64L << 20, 1 << 20);
    }
    for (String table : List.of(WRITE, WRITE_SYNC, READ, READ_COLD)) {
      results.table(table, Unit.MIB_PER_S);
    }
    WriteThenRead plain = new WriteThenRead(results, WRITE, READ).coldReadsTo(READ_COLD);
    WriteThenRead synced = new WriteThenRead(results, WRITE_SYNC, null).syncEachWrite();
    for (int round = 0; round < rounds(run); round++) {
      for (int block : BLOCKS) {
        String row = Transfers.label(block);
        for (Target t : Run.rotate(systems, round)) {
          plain.run(t, row, block / 1024.0, round, size(run), block);
          synced.run(t, row, block / 1024.0, round, syncedSize(run, block), block);
        }
      }
    }
    results.ratio(BraidTarget.SYSTEM, LocalDiskTarget.SYSTEM);
    results.ratio(BraidTarget.SYSTEM, HDFS);
    results.describe(WRITE, "create, write " + Transfers.label(size(run)) + ", durable close");
    results.describe(
        WRITE_SYNC, "create, write with hsync / fdatasync after every block, durable close");
    results.describe(READ, "open, read to the end, close; from the page cache");
    results.describe(READ_COLD, "as read, after dropping the page cache");
    if (Run.root()) {
      results.note(
          "Cold reads: Braid's file is striped over four chunk files on four data servers, which"
              + " its read-ahead reads at once, while the local disk reads one file with the"
              + " kernel's read-ahead; more requests in flight may be why Braid's cold reads can"
              + " match or beat the local disk's with small blocks. The page cache is dropped for"
              + " the whole machine, so these cells are the noisiest.");
    }
    for (String table : List.of(WRITE, WRITE_SYNC, READ, READ_COLD)) {
      if (!Double.isNaN(results.median(table, Transfers.label(BLOCKS.get(0)), "Braid"))) {
        results.plot(table, "application block size (KiB)", true);
      }
    }
  }
}
