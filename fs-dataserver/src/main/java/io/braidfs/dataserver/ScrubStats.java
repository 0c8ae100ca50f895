package io.braidfs.dataserver;

/**
 * What a data server's scrubber has done since the server started, for the status page.
 *
 * <p>Thread-safety: immutable.
 *
 * @param passes passes over every replica completed
 * @param replicasScanned replicas read to the end and found good
 * @param bytesScanned bytes read and checked
 * @param corruptFound replicas found corrupt and reported
 */
public record ScrubStats(long passes, long replicasScanned, long bytesScanned, long corruptFound) {

  /** The figures of a server that does not scrub. */
  public static final ScrubStats NONE = new ScrubStats(0, 0, 0, 0);
}
