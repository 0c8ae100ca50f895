package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.common.layout.Layout;
import io.braidfs.proto.ChunkSetLocation;
import java.util.List;

/**
 * A file opened for writing, as Create or Open answered: what a {@link StripedWriter} starts from.
 *
 * <p>Thread-safety: immutable.
 *
 * @param inodeId the file's inode id
 * @param path the file's path, for messages and MDS calls
 * @param layout the file's layout
 * @param length the file's length when opened (0 after create or truncate)
 * @param token the capability token granting READ and WRITE
 * @param chunkSets the chunk sets the MDS already returned (set 0 after create)
 */
public record WriteTarget(
    long inodeId,
    String path,
    Layout layout,
    long length,
    ByteString token,
    List<ChunkSetLocation> chunkSets) {
  public WriteTarget {
    chunkSets = List.copyOf(chunkSets);
  }
}
