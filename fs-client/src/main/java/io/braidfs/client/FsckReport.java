package io.braidfs.client;

import java.util.List;

/**
 * What {@link BraidAdmin#fsck} found under a path: counts over every file checked, and the files
 * listed (those not healthy, or every one when asked for), in path order.
 *
 * <p>Thread-safety: immutable.
 *
 * @param files the files checked
 * @param directories the directories checked
 * @param chunks the chunks checked
 * @param healthyFiles files whose every chunk has its full replication
 * @param underReplicatedFiles files whose worst chunk is under-replicated
 * @param corruptFiles files whose worst chunk is corrupt
 * @param missingFiles files with a missing chunk
 * @param underReplicatedChunks chunks with fewer good replicas than their file's replication
 * @param corruptChunks chunks whose every replica is corrupt
 * @param missingChunks chunks with no replica on a live data server
 * @param entries the files listed, in path order; immutable
 * @param truncated whether more files qualified for the listing than were asked for
 * @param repairQueue chunks waiting for repair or being repaired, cluster-wide
 * @param safeMode whether the MDS is in its start-up safe mode (data servers still reporting,
 *     nothing repaired yet), in which case missing chunks may only be unreported so far
 */
public record FsckReport(
    long files,
    long directories,
    long chunks,
    long healthyFiles,
    long underReplicatedFiles,
    long corruptFiles,
    long missingFiles,
    long underReplicatedChunks,
    long corruptChunks,
    long missingChunks,
    List<FsckFile> entries,
    boolean truncated,
    long repairQueue,
    boolean safeMode) {

  public FsckReport {
    entries = List.copyOf(entries);
  }

  /**
   * The health of the whole tree: the worst found ({@link FileHealth#MISSING} before {@link
   * FileHealth#CORRUPT} before {@link FileHealth#UNDER_REPLICATED}), else {@link
   * FileHealth#HEALTHY}.
   */
  public FileHealth health() {
    if (missingFiles > 0 || missingChunks > 0) {
      return FileHealth.MISSING;
    }
    if (corruptFiles > 0 || corruptChunks > 0) {
      return FileHealth.CORRUPT;
    }
    if (underReplicatedFiles > 0 || underReplicatedChunks > 0) {
      return FileHealth.UNDER_REPLICATED;
    }
    return FileHealth.HEALTHY;
  }

  /**
   * Whether some bytes cannot be read now: a chunk is missing or corrupt. Under-replication alone
   * is not (every byte is still readable), as with HDFS's fsck.
   */
  public boolean hasUnreadableData() {
    FileHealth h = health();
    return h == FileHealth.MISSING || h == FileHealth.CORRUPT;
  }
}
