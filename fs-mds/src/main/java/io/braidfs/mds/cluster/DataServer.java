package io.braidfs.mds.cluster;

import io.braidfs.proto.ReplicaLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A data server as the {@link DataServerRegistry} saw it at one instant: identity, address, storage
 * directories, the usage of its last heartbeat and whether it was live.
 *
 * <p>Ids are unsigned 32-bit values ({@code uint32} on the wire), never 0; print them with {@link
 * Integer#toUnsignedString(int)}. Two servers are on the same <em>host</em> when their {@link
 * #host()} strings are equal ignoring case ({@link #hostKey()}); placement keeps the replicas of a
 * chunk on distinct hosts when it can.
 *
 * <p>Thread-safety: immutable.
 *
 * @param id the cluster-wide id the MDS assigned at first registration; never 0
 * @param host the host name or address on which the server's DataService listens
 * @param port the TCP port of the server's DataService, 1 to 65535
 * @param rack the network topology path, such as {@code /dc1/rack7}; empty when unknown
 * @param dataDirs the server's storage directories, as last registered
 * @param usage space and load from the last heartbeat ({@link Usage#unreported} until the first)
 * @param lastHeartbeatNanos the {@link io.braidfs.common.clock.Clock#nanoTime()} reading at the
 *     last heartbeat or registration; only differences between readings mean anything
 * @param live whether a heartbeat (or registration) arrived less than the dead interval before the
 *     snapshot was taken
 * @param state as an operator set it
 */
public record DataServer(
    int id,
    String host,
    int port,
    String rack,
    List<DataDir> dataDirs,
    Usage usage,
    long lastHeartbeatNanos,
    boolean live,
    AdminState state) {

  /** A server in service. */
  public DataServer(
      int id,
      String host,
      int port,
      String rack,
      List<DataDir> dataDirs,
      Usage usage,
      long lastHeartbeatNanos,
      boolean live) {
    this(id, host, port, rack, dataDirs, usage, lastHeartbeatNanos, live, AdminState.IN_SERVICE);
  }

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException if {@code id} is 0, {@code host} is blank or {@code port} is
   *     outside 1 to 65535
   * @throws NullPointerException if a reference is null
   */
  public DataServer {
    if (id == 0) {
      throw new IllegalArgumentException("data server id 0 is reserved for 'not yet assigned'");
    }
    checkAddress(host, port);
    Objects.requireNonNull(rack, "rack");
    Objects.requireNonNull(usage, "usage");
    Objects.requireNonNull(state, "state");
    dataDirs = List.copyOf(dataDirs);
  }

  /** Whether new replicas may be placed here: live, in service, and not every directory failed. */
  public boolean placeable() {
    return live && state.acceptsReplicas();
  }

  /** The host compared for placement: {@link #host()} in lower case. */
  public String hostKey() {
    return hostKey(host);
  }

  /** {@code host:port}, for messages. */
  public String endpoint() {
    return host + ":" + port;
  }

  /** Where a replica on this server lives, as the wire protocol names it. */
  public ReplicaLocation toReplicaLocation() {
    return ReplicaLocation.newBuilder()
        .setServerId(id)
        .setHost(host)
        .setPort(port)
        .setRack(rack)
        .build();
  }

  /** The id, endpoint and liveness, such as {@code ds7@h1:9870(live)}. */
  @Override
  public String toString() {
    return "ds"
        + Integer.toUnsignedString(id)
        + "@"
        + endpoint()
        + (live ? "(live" : "(dead")
        + (state == AdminState.IN_SERVICE ? ")" : ", " + state + ")");
  }

  static String hostKey(String host) {
    return host.toLowerCase(Locale.ROOT);
  }

  static void checkAddress(String host, int port) {
    if (host.isBlank()) {
      throw new IllegalArgumentException("data server host must not be blank");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("data server port must be in [1, 65535]: " + port);
    }
  }

  /**
   * One storage directory of a data server.
   *
   * <p>Thread-safety: immutable.
   *
   * @param path the local path on the data server, for operators
   * @param storageId the random id written into the directory when it was formatted; survives
   *     remounts and renames
   * @param fileSystemId names the file system the directory is on, the same for every directory on
   *     it ({@code host:dev:N}); empty if the server did not say
   * @param capacityBytes the capacity of the directory's file system available to Braid, in bytes
   */
  public record DataDir(String path, String storageId, String fileSystemId, long capacityBytes) {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException if {@code capacityBytes} is negative
     * @throws NullPointerException if a string is null
     */
    public DataDir {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(storageId, "storageId");
      Objects.requireNonNull(fileSystemId, "fileSystemId");
      if (capacityBytes < 0) {
        throw new IllegalArgumentException("capacityBytes must be >= 0: " + capacityBytes);
      }
    }

    /** A directory whose file system is not named (counted as one of its own). */
    public DataDir(String path, String storageId, long capacityBytes) {
      this(path, storageId, "", capacityBytes);
    }
  }

  /**
   * The space of one data directory as its server last reported it.
   *
   * <p>Thread-safety: immutable.
   *
   * @param fileSystemId names the directory's file system ({@link DataDir#fileSystemId()}); empty
   *     if not named, when the directory counts as a file system of its own
   * @param capacityBytes capacity of the file system available to Braid, in bytes
   * @param usedBytes bytes of replicas in the directory
   * @param availableBytes bytes new replicas may still use in the directory
   */
  public record DirSpace(
      String fileSystemId, long capacityBytes, long usedBytes, long availableBytes) {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException if a byte count is negative
     * @throws NullPointerException if {@code fileSystemId} is null
     */
    public DirSpace {
      Objects.requireNonNull(fileSystemId, "fileSystemId");
      if (capacityBytes < 0 || usedBytes < 0 || availableBytes < 0) {
        throw new IllegalArgumentException(
            String.format(
                "space must not be negative: capacity=%d used=%d available=%d",
                capacityBytes, usedBytes, availableBytes));
      }
    }
  }

  /**
   * Space and load as a data server reports them in a heartbeat. Byte counts are raw: every replica
   * counts. The numbers need not add up ({@code used + available} may be below {@code capacity}
   * because of space the server keeps in reserve or that other files use).
   *
   * <p>Thread-safety: immutable.
   *
   * @param capacityBytes total capacity available to Braid, in bytes
   * @param usedBytes bytes used by chunk replicas
   * @param availableBytes bytes still available for new replicas, after the server's own reserve
   * @param activeTransfers chunk reads, writes and copies in progress
   * @param dirs the space of each data directory (the three sums above split by directory, each
   *     naming its file system), so that StatFs counts a shared file system once; empty if the
   *     server did not report them, when the sums count as one file system of its own
   * @param failedDirs data directories the server has taken out of service
   */
  public record Usage(
      long capacityBytes,
      long usedBytes,
      long availableBytes,
      int activeTransfers,
      List<DirSpace> dirs,
      int failedDirs) {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException if any value is negative
     * @throws NullPointerException if {@code dirs} is null
     */
    public Usage {
      if (capacityBytes < 0
          || usedBytes < 0
          || availableBytes < 0
          || activeTransfers < 0
          || failedDirs < 0) {
        throw new IllegalArgumentException(
            String.format(
                "usage must not be negative: capacity=%d used=%d available=%d transfers=%d",
                capacityBytes, usedBytes, availableBytes, activeTransfers));
      }
      dirs = List.copyOf(dirs);
    }

    /** Usage with no failed directory. */
    public Usage(
        long capacityBytes,
        long usedBytes,
        long availableBytes,
        int activeTransfers,
        List<DirSpace> dirs) {
      this(capacityBytes, usedBytes, availableBytes, activeTransfers, dirs, 0);
    }

    /** Usage without a split by directory (one file system of the server's own). */
    public Usage(long capacityBytes, long usedBytes, long availableBytes, int activeTransfers) {
      this(capacityBytes, usedBytes, availableBytes, activeTransfers, List.of());
    }

    /**
     * Whether this is {@link #unreported} usage: a capacity with nothing used and nothing
     * available, which no heartbeat reports (a full disk still counts its own data as used).
     */
    public boolean isUnreported() {
      return capacityBytes > 0 && usedBytes == 0 && availableBytes == 0;
    }

    /**
     * The usage of a server that registered but has not heartbeated yet: its capacity, with nothing
     * known to be available, so that placement passes it over until it reports.
     *
     * @throws IllegalArgumentException if {@code capacityBytes} is negative
     */
    public static Usage unreported(long capacityBytes) {
      return new Usage(capacityBytes, 0, 0, 0);
    }

    /**
     * As {@link #unreported(long)}, with the capacity of each of {@code dirs} (none used or
     * available), so a file system shared with other servers counts once from the start.
     *
     * @throws IllegalArgumentException if {@code capacityBytes} is negative
     */
    public static Usage unreported(long capacityBytes, List<DataDir> dirs) {
      List<DirSpace> space = new ArrayList<>(dirs.size());
      for (DataDir d : dirs) {
        space.add(new DirSpace(d.fileSystemId(), d.capacityBytes(), 0, 0));
      }
      return new Usage(capacityBytes, 0, 0, 0, space);
    }
  }
}
