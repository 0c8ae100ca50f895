package io.braidfs.common.token;

import java.util.Objects;

/**
 * What a data server is asked to do, to be checked against a capability token: which client (as
 * bound to the connection), which chunk of which file, in which mode, and the lowest MDS epoch the
 * data server still accepts.
 *
 * <p>Thread-safety: immutable.
 *
 * @param clientId the client id bound to the connection the request came on
 * @param fileId the inode id of the file the chunk belongs to
 * @param fileGeneration the file generation the data server holds for that chunk
 * @param chunkIndex the global chunk index (see {@code Layout})
 * @param mode {@link CapabilityToken#READ}, {@link CapabilityToken#WRITE} or both
 * @param minEpoch the lowest MDS epoch the data server accepts (its persisted {@code maxEpochSeen})
 */
public record AccessRequest(
    ClientId clientId, long fileId, long fileGeneration, long chunkIndex, int mode, long minEpoch) {

  /**
   * Checks the mode.
   *
   * @throws IllegalArgumentException if {@code mode} is not READ, WRITE or READ | WRITE
   */
  public AccessRequest {
    Objects.requireNonNull(clientId, "clientId");
    if (mode == 0 || (mode & ~(CapabilityToken.READ | CapabilityToken.WRITE)) != 0) {
      throw new IllegalArgumentException("mode must be READ, WRITE or both: " + mode);
    }
  }
}
