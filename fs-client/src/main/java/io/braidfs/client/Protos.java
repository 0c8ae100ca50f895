package io.braidfs.client;

import io.braidfs.common.acl.AclEntry;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ClusterReportResponse;
import io.braidfs.proto.ContentSummaryResponse;
import io.braidfs.proto.FailoverResponse;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.GetLayoutPolicyResponse;
import io.braidfs.proto.GetServerDefaultsResponse;
import io.braidfs.proto.HaStatusResponse;
import io.braidfs.proto.LayoutSpec;
import io.braidfs.proto.ServerAdminState;
import io.braidfs.proto.StatFsResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between the client's API types and the wire messages: the one place where the public
 * types of this package meet generated protobuf (which the API never shows).
 *
 * <p>Thread-safety: stateless.
 */
final class Protos {
  private Protos() {}

  static FileType fileType(io.braidfs.proto.FileType type) {
    return switch (type) {
      case FILE_TYPE_REGULAR -> FileType.REGULAR;
      case FILE_TYPE_DIRECTORY -> FileType.DIRECTORY;
      case FILE_TYPE_SYMLINK -> FileType.SYMLINK;
      case FILE_TYPE_FIFO -> FileType.FIFO;
      case FILE_TYPE_CHARACTER_DEVICE -> FileType.CHARACTER_DEVICE;
      case FILE_TYPE_BLOCK_DEVICE -> FileType.BLOCK_DEVICE;
      case FILE_TYPE_SOCKET -> FileType.SOCKET;
      case FILE_TYPE_UNSPECIFIED, UNRECOGNIZED -> FileType.UNKNOWN;
    };
  }

  static io.braidfs.proto.FileType toProto(FileType type) {
    return switch (type) {
      case REGULAR -> io.braidfs.proto.FileType.FILE_TYPE_REGULAR;
      case DIRECTORY -> io.braidfs.proto.FileType.FILE_TYPE_DIRECTORY;
      case SYMLINK -> io.braidfs.proto.FileType.FILE_TYPE_SYMLINK;
      case FIFO -> io.braidfs.proto.FileType.FILE_TYPE_FIFO;
      case CHARACTER_DEVICE -> io.braidfs.proto.FileType.FILE_TYPE_CHARACTER_DEVICE;
      case BLOCK_DEVICE -> io.braidfs.proto.FileType.FILE_TYPE_BLOCK_DEVICE;
      case SOCKET -> io.braidfs.proto.FileType.FILE_TYPE_SOCKET;
      case UNKNOWN -> io.braidfs.proto.FileType.FILE_TYPE_UNSPECIFIED;
    };
  }

  static io.braidfs.proto.XattrSetMode toProto(XattrSetMode mode) {
    return switch (mode) {
      case CREATE_OR_REPLACE -> io.braidfs.proto.XattrSetMode.XATTR_SET_MODE_UNSPECIFIED;
      case CREATE -> io.braidfs.proto.XattrSetMode.XATTR_SET_MODE_CREATE;
      case REPLACE -> io.braidfs.proto.XattrSetMode.XATTR_SET_MODE_REPLACE;
    };
  }

  static io.braidfs.proto.RenameSemantics toProto(RenameSemantics semantics) {
    return switch (semantics) {
      case POSIX -> io.braidfs.proto.RenameSemantics.RENAME_SEMANTICS_POSIX;
      case HADOOP -> io.braidfs.proto.RenameSemantics.RENAME_SEMANTICS_HADOOP;
    };
  }

  static LayoutPolicy layoutPolicy(LayoutSpec spec) {
    return new LayoutPolicy(
        spec.getStripeUnit(), spec.getStripeWidth(), spec.getChunkSize(), spec.getReplication());
  }

  static LayoutSpec toProto(LayoutPolicy policy) {
    return LayoutSpec.newBuilder()
        .setStripeUnit(policy.stripeUnit())
        .setStripeWidth(policy.stripeWidth())
        .setChunkSize(policy.chunkSize())
        .setReplication(policy.replication())
        .build();
  }

  static DirectoryLayout directoryLayout(GetLayoutPolicyResponse r) {
    return new DirectoryLayout(layoutPolicy(r.getPolicy()), layoutPolicy(r.getEffective()));
  }

  static ServerDefaults serverDefaults(GetServerDefaultsResponse r) {
    return new ServerDefaults(
        layoutPolicy(r.getDefaultLayout()),
        r.getChecksumBlockSize(),
        r.getServerTimeNs(),
        Duration.ofMillis(Integer.toUnsignedLong(r.getTokenLifetimeMs())),
        Duration.ofMillis(Integer.toUnsignedLong(r.getLeaseTtlMs())),
        r.getMaxMessageBytes(),
        r.getMaxPayloadBytes(),
        r.getClusterId());
  }

  static FileSystemStats fileSystemStats(StatFsResponse r) {
    return new FileSystemStats(
        r.getCapacityBytes(),
        r.getUsedBytes(),
        r.getAvailableBytes(),
        r.getInodeCount(),
        r.getMaxInodes(),
        r.getMaxNameBytes(),
        r.getLiveDataServers(),
        r.getRawCapacityBytes(),
        r.getRawUsedBytes(),
        r.getRawAvailableBytes(),
        r.getReplication());
  }

  static ContentSummary contentSummary(ContentSummaryResponse r) {
    return new ContentSummary(
        r.getLength(), r.getFileCount(), r.getDirectoryCount(), r.getSpaceConsumed());
  }

  static ChunkLocations chunkLocations(GetChunkLocationsResponse r) {
    List<ChunkSetLocation> sets = new ArrayList<>(r.getChunkSetsCount());
    for (io.braidfs.proto.ChunkSetLocation set : r.getChunkSetsList()) {
      List<ChunkLocation> chunks = new ArrayList<>(set.getChunksCount());
      for (io.braidfs.proto.ChunkLocation chunk : set.getChunksList()) {
        List<ReplicaLocation> replicas = new ArrayList<>(chunk.getReplicasCount());
        for (io.braidfs.proto.ReplicaLocation replica : chunk.getReplicasList()) {
          replicas.add(
              new ReplicaLocation(
                  replica.getServerId(), replica.getHost(), replica.getPort(), replica.getRack()));
        }
        ChunkId id = chunk.getId();
        chunks.add(
            new ChunkLocation(
                id.getInodeId(),
                id.getChunkIndex(),
                chunk.getVersion(),
                chunk.getLength(),
                replicas));
      }
      sets.add(new ChunkSetLocation(set.getSetIndex(), set.getFileOffset(), chunks));
    }
    return new ChunkLocations(
        sets, r.getFileLength(), r.getUnderConstruction(), layoutPolicy(r.getLayout()));
  }

  // ---- admin (BraidAdmin) -----------------------------------------------------------------------

  static FileHealth fileHealth(io.braidfs.proto.FileHealth health) {
    return switch (health) {
      case HEALTHY -> FileHealth.HEALTHY;
      case UNDER_REPLICATED -> FileHealth.UNDER_REPLICATED;
      case CORRUPT -> FileHealth.CORRUPT;
      case MISSING -> FileHealth.MISSING;
      case FILE_HEALTH_UNSPECIFIED, UNRECOGNIZED -> FileHealth.UNKNOWN;
    };
  }

  static ServerState serverState(ServerAdminState state) {
    return switch (state) {
      case IN_SERVICE -> ServerState.IN_SERVICE;
      case DECOMMISSIONING -> ServerState.DECOMMISSIONING;
      case DECOMMISSIONED -> ServerState.DECOMMISSIONED;
      case IN_MAINTENANCE -> ServerState.IN_MAINTENANCE;
      case SERVER_ADMIN_STATE_UNSPECIFIED, UNRECOGNIZED -> ServerState.UNKNOWN;
    };
  }

  static ServerAdminState toProto(ServerState state) {
    return switch (state) {
      case IN_SERVICE -> ServerAdminState.IN_SERVICE;
      case DECOMMISSIONING -> ServerAdminState.DECOMMISSIONING;
      case DECOMMISSIONED -> ServerAdminState.DECOMMISSIONED;
      case IN_MAINTENANCE -> ServerAdminState.IN_MAINTENANCE;
      case UNKNOWN -> ServerAdminState.SERVER_ADMIN_STATE_UNSPECIFIED;
    };
  }

  static FsckFile fsckFile(io.braidfs.proto.FsckFile f) {
    return new FsckFile(
        f.getPath(),
        fileHealth(f.getHealth()),
        f.getReplication(),
        f.getLength(),
        f.getChunks(),
        f.getUnderReplicatedChunks(),
        f.getCorruptChunks(),
        f.getMissingChunks(),
        f.getOpenForWrite());
  }

  static FsckReport fsckReport(FsckResponse r) {
    List<FsckFile> entries = new ArrayList<>(r.getEntriesCount());
    for (io.braidfs.proto.FsckFile f : r.getEntriesList()) {
      entries.add(fsckFile(f));
    }
    return new FsckReport(
        r.getFiles(),
        r.getDirectories(),
        r.getChunks(),
        r.getHealthyFiles(),
        r.getUnderReplicatedFiles(),
        r.getCorruptFiles(),
        r.getMissingFiles(),
        r.getUnderReplicatedChunks(),
        r.getCorruptChunks(),
        r.getMissingChunks(),
        entries,
        r.getTruncated(),
        r.getRepairQueue(),
        r.getSafeMode());
  }

  static ServerReport serverReport(io.braidfs.proto.ServerReport s) {
    return new ServerReport(
        s.getServerId(),
        s.getHost(),
        s.getPort(),
        s.getRack(),
        s.getLive(),
        serverState(s.getState()),
        s.getCapacityBytes(),
        s.getUsedBytes(),
        s.getAvailableBytes(),
        s.getReplicas(),
        millis(s.getLastHeartbeatMs()),
        s.getFailedDataDirs(),
        s.getCopiesInFlight(),
        s.getDataDirs());
  }

  static ClusterReport clusterReport(ClusterReportResponse r) {
    List<ServerReport> servers = new ArrayList<>(r.getServersCount());
    for (io.braidfs.proto.ServerReport s : r.getServersList()) {
      servers.add(serverReport(s));
    }
    return new ClusterReport(
        servers,
        r.getCapacityBytes(),
        r.getUsedBytes(),
        r.getAvailableBytes(),
        r.getLiveServers(),
        r.getDeadServers(),
        r.getRepairQueue(),
        r.getCopiesInFlight(),
        r.getSafeMode(),
        millis(r.getSafeModeRemainingMs()));
  }

  static MdsRole mdsRole(io.braidfs.proto.MdsRole role) {
    return switch (role) {
      case MDS_ROLE_SINGLE -> MdsRole.SINGLE;
      case MDS_ROLE_LEADER -> MdsRole.LEADER;
      case MDS_ROLE_STANDBY -> MdsRole.STANDBY;
      case MDS_ROLE_TAKING_OVER -> MdsRole.TAKING_OVER;
      case MDS_ROLE_STARTING -> MdsRole.STARTING;
      case MDS_ROLE_STOPPING -> MdsRole.STOPPING;
      case MDS_ROLE_REJOINING -> MdsRole.REJOINING;
      case MDS_ROLE_UNSPECIFIED, UNRECOGNIZED -> MdsRole.UNKNOWN;
    };
  }

  static MdsStatus mdsStatus(HaStatusResponse r) {
    return new MdsStatus(
        r.getReplicaId(),
        r.getAddress(),
        mdsRole(r.getRole()),
        r.getEpoch(),
        r.getJournalIndex(),
        r.getLeaderHint(),
        r.getClusterId());
  }

  static FailoverResult failoverResult(FailoverResponse r) {
    return new FailoverResult(r.getReplicaId(), r.getAddress(), r.getEpoch());
  }

  /** A uint64 count of milliseconds; one above Long.MAX_VALUE (negative here) is capped to it. */
  private static Duration millis(long unsignedMillis) {
    return Duration.ofMillis(unsignedMillis < 0 ? Long.MAX_VALUE : unsignedMillis);
  }

  static List<io.braidfs.proto.AclEntry> aclEntriesToWire(List<AclEntry> entries) {
    List<io.braidfs.proto.AclEntry> out = new java.util.ArrayList<>(entries.size());
    for (AclEntry e : entries) {
      out.add(
          io.braidfs.proto.AclEntry.newBuilder()
              .setDefaultScope(e.defaultScope())
              .setType(io.braidfs.proto.AclEntryType.forNumber(e.type().ordinal() + 1))
              .setName(e.name())
              .setPermission(e.permission())
              .build());
    }
    return out;
  }

  static List<AclEntry> aclEntriesFromWire(List<io.braidfs.proto.AclEntry> wire) {
    List<AclEntry> out = new java.util.ArrayList<>(wire.size());
    for (io.braidfs.proto.AclEntry w : wire) {
      out.add(
          new AclEntry(
              w.getDefaultScope(),
              AclEntry.Type.values()[Math.max(0, w.getTypeValue() - 1) % 4],
              w.getName(),
              w.getPermission() & 7));
    }
    return out;
  }
}
