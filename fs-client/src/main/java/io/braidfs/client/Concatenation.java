package io.braidfs.client;

import io.braidfs.client.internal.MetadataClient;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's half of concat (see {@code ConcatRequest} in mds.proto and docs/architecture.md):
 * Braid joins files by copying, because chunk ids name their inode. The MDS checks the call first,
 * so a refused concat changes nothing; then the sources' bytes are appended to the target under the
 * target's write lease and finalized on every replica; last, one Concat call commits that append
 * and removes the sources, as one journal record.
 *
 * <p>Until that record is applied the target's committed length is its old one and every source is
 * in place. On a failure before it, the target is committed back at its old length (bytes copied
 * past it are beyond the end, and go with the file's next truncate or deletion); if this client
 * dies instead, the lease expires and the MDS closes the file at that length.
 *
 * <p>Thread-safety: one call on one thread; the instance holds nothing between calls.
 */
final class Concatenation {
  private static final Logger LOG = LoggerFactory.getLogger(Concatenation.class);

  /** Bytes per read from a source: large enough that the read-ahead window opens fully. */
  private static final int COPY_BUFFER = 1 << 20;

  private final BraidClient client;
  private final MetadataClient mds;

  Concatenation(BraidClient client, MetadataClient mds) {
    this.client = client;
    this.mds = mds;
  }

  /** Concatenates canonical {@code sources} onto canonical {@code target}. */
  FileAttributes run(String target, List<String> sources) throws IOException {
    ConcatRequest request =
        ConcatRequest.newBuilder().setTargetPath(target).addAllSourcePaths(sources).build();
    ConcatResponse checked =
        mds.call(RpcMethod.CONCAT, request.toBuilder().setCheckOnly(true).build());
    BraidOutputStream out = client.append(target);
    long start = out.getPos();
    try {
      byte[] buffer = new byte[COPY_BUFFER];
      for (int i = 0; i < sources.size(); i++) {
        copy(target, sources.get(i), checked.getSources(i), out, buffer);
      }
      Attributes after =
          out.complete(
              commit ->
                  mds.call(
                          RpcMethod.CONCAT,
                          request.toBuilder()
                              .setCommit(commit)
                              .addAllCopiedSources(checked.getSourcesList())
                              .build())
                      .getAttributes());
      if (after == null) { // only if something closed the stream under us
        throw StatusExceptions.toIOException(
            Status.CANCELLED, "concat " + target + ": the target's stream was closed");
      }
      return new FileAttributes(after);
    } catch (IOException | RuntimeException e) {
      out.abort(); // does nothing once complete() ran
      rollBack(target, out.inodeId(), start, e);
      throw e;
    }
  }

  /** Appends the whole of {@code source}, as the MDS described it, to {@code out}. */
  private void copy(
      String target, String source, Attributes expected, BraidOutputStream out, byte[] buffer)
      throws IOException {
    try (BraidInputStream in = client.open(source)) {
      if (in.inodeId() != expected.getInodeId() || in.length() != expected.getSize()) {
        throw changed(target, source);
      }
      long left = expected.getSize();
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw changed(target, source);
        }
        out.write(buffer, 0, n);
        left -= n;
      }
    }
  }

  private static IOException changed(String target, String source) {
    return StatusExceptions.toIOException(
        Status.STALE_HANDLE, "concat " + target + ": source " + source + " changed while copied");
  }

  /**
   * Commits the target back at its length before the copy, releasing the lease. A failure here (the
   * lease is gone, or the concat was applied after all) leaves recovery to the lease.
   */
  private void rollBack(String target, long inodeId, long length, Exception cause) {
    try {
      mds.commit(
          CommitRequest.newBuilder().setPath(target).setInodeId(inodeId).setLength(length).build());
    } catch (IOException | RuntimeException e) {
      LOG.debug("concat {}: could not commit the target back at {}: {}", target, length, e);
      cause.addSuppressed(e);
    }
  }
}
