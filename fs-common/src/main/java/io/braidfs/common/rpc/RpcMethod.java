package io.braidfs.common.rpc;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.braidfs.proto.AccessRequest;
import io.braidfs.proto.AccessResponse;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.CancelDelegationTokenRequest;
import io.braidfs.proto.CancelDelegationTokenResponse;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.ChecksumChunkResponse;
import io.braidfs.proto.ChunkReportRequest;
import io.braidfs.proto.ChunkReportResponse;
import io.braidfs.proto.ClusterReportRequest;
import io.braidfs.proto.ClusterReportResponse;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.CommonProtos;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import io.braidfs.proto.ConfirmChunksRequest;
import io.braidfs.proto.ConfirmChunksResponse;
import io.braidfs.proto.ContentSummaryRequest;
import io.braidfs.proto.ContentSummaryResponse;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.CopyChunkResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DataProtos;
import io.braidfs.proto.DeleteChunksRequest;
import io.braidfs.proto.DeleteChunksResponse;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DeleteResponse;
import io.braidfs.proto.FailoverRequest;
import io.braidfs.proto.FailoverResponse;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.FinalizeChunkResponse;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.GetAclRequest;
import io.braidfs.proto.GetAclResponse;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetAttrResponse;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.GetChunkInfoResponse;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.GetDelegationTokenRequest;
import io.braidfs.proto.GetDelegationTokenResponse;
import io.braidfs.proto.GetLayoutPolicyRequest;
import io.braidfs.proto.GetLayoutPolicyResponse;
import io.braidfs.proto.GetServerDefaultsRequest;
import io.braidfs.proto.GetServerDefaultsResponse;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.GetXattrResponse;
import io.braidfs.proto.HaSnapshotReadRequest;
import io.braidfs.proto.HaSnapshotReadResponse;
import io.braidfs.proto.HaSnapshotRequest;
import io.braidfs.proto.HaSnapshotResponse;
import io.braidfs.proto.HaStatusRequest;
import io.braidfs.proto.HaStatusResponse;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.HelloResponse;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.LinkResponse;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.ListXattrsResponse;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.LookupResponse;
import io.braidfs.proto.MdsProtos;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MkdirResponse;
import io.braidfs.proto.MknodRequest;
import io.braidfs.proto.MknodResponse;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.OpenLocalReplicaResponse;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReadChunkResponse;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.ReadLinkRequest;
import io.braidfs.proto.ReadLinkResponse;
import io.braidfs.proto.RecoverLeaseRequest;
import io.braidfs.proto.RecoverLeaseResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RemoveXattrResponse;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameResponse;
import io.braidfs.proto.RenewDelegationTokenRequest;
import io.braidfs.proto.RenewDelegationTokenResponse;
import io.braidfs.proto.RenewLeaseRequest;
import io.braidfs.proto.RenewLeaseResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.ReplicaChangesRequest;
import io.braidfs.proto.ReplicaChangesResponse;
import io.braidfs.proto.ReportBadReplicaRequest;
import io.braidfs.proto.ReportBadReplicaResponse;
import io.braidfs.proto.ReportCorruptReplicasRequest;
import io.braidfs.proto.ReportCorruptReplicasResponse;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.RmdirResponse;
import io.braidfs.proto.SetAclRequest;
import io.braidfs.proto.SetAclResponse;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetAttrResponse;
import io.braidfs.proto.SetLayoutPolicyRequest;
import io.braidfs.proto.SetLayoutPolicyResponse;
import io.braidfs.proto.SetReplicationRequest;
import io.braidfs.proto.SetReplicationResponse;
import io.braidfs.proto.SetServerStateRequest;
import io.braidfs.proto.SetServerStateResponse;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.SetXattrResponse;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.SymlinkResponse;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.SyncChunkResponse;
import io.braidfs.proto.TruncateChunkRequest;
import io.braidfs.proto.TruncateChunkResponse;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.proto.UnlinkResponse;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.proto.WriteChunkResponse;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One RPC method: its wire id, its request and response types. This class is the registry of all
 * methods, used by client stubs (to encode a call and parse its reply) and by server dispatch (to
 * parse a request and find its handler).
 *
 * <p>Methods are declared once, in the {@code .proto} services of fs-common; the id comes from the
 * {@code (braid.method_id)} option there. Each constant below binds a proto method to its Java
 * types, and {@code RpcMethodTest} checks that every proto method has exactly one constant.
 *
 * <p>Why it is long: every method of the wire protocol (63, in five services) is bound here to its
 * Java request and response types, one constant of six formatted lines and two imports each, so the
 * registry is complete in the one place {@code RpcMethodTest} checks against the protos; the
 * class's own code is under 100 lines.
 *
 * <p>Thread-safety: immutable; the registry is complete once this class is initialised.
 *
 * @param <Q> the request message type
 * @param <R> the response message type
 */
public final class RpcMethod<Q extends Message, R extends Message> {
  private static final Map<Integer, RpcMethod<?, ?>> BY_ID = new LinkedHashMap<>();

  private static final ServiceDescriptor COMMON_SERVICE =
      CommonProtos.getDescriptor().findServiceByName("CommonService");
  private static final ServiceDescriptor METADATA_SERVICE =
      MdsProtos.getDescriptor().findServiceByName("MetadataService");
  private static final ServiceDescriptor CLUSTER_SERVICE =
      MdsProtos.getDescriptor().findServiceByName("ClusterService");
  private static final ServiceDescriptor ADMIN_SERVICE =
      MdsProtos.getDescriptor().findServiceByName("AdminService");
  private static final ServiceDescriptor DATA_SERVICE =
      DataProtos.getDescriptor().findServiceByName("DataService");

  // ---- CommonService: served by every server ----------------------------------------------------
  public static final RpcMethod<HelloRequest, HelloResponse> HELLO =
      define(
          COMMON_SERVICE,
          "Hello",
          HelloRequest.getDefaultInstance(),
          HelloResponse.getDefaultInstance());
  public static final RpcMethod<PingRequest, PingResponse> PING =
      define(
          COMMON_SERVICE,
          "Ping",
          PingRequest.getDefaultInstance(),
          PingResponse.getDefaultInstance());

  // ---- MetadataService (100-199): namespace operations, client -> leader MDS --------------------
  public static final RpcMethod<LookupRequest, LookupResponse> LOOKUP =
      define(
          METADATA_SERVICE,
          "Lookup",
          LookupRequest.getDefaultInstance(),
          LookupResponse.getDefaultInstance());
  public static final RpcMethod<GetAttrRequest, GetAttrResponse> GET_ATTR =
      define(
          METADATA_SERVICE,
          "GetAttr",
          GetAttrRequest.getDefaultInstance(),
          GetAttrResponse.getDefaultInstance());
  public static final RpcMethod<SetAttrRequest, SetAttrResponse> SET_ATTR =
      define(
          METADATA_SERVICE,
          "SetAttr",
          SetAttrRequest.getDefaultInstance(),
          SetAttrResponse.getDefaultInstance());
  public static final RpcMethod<MkdirRequest, MkdirResponse> MKDIR =
      define(
          METADATA_SERVICE,
          "Mkdir",
          MkdirRequest.getDefaultInstance(),
          MkdirResponse.getDefaultInstance());
  public static final RpcMethod<CreateRequest, CreateResponse> CREATE =
      define(
          METADATA_SERVICE,
          "Create",
          CreateRequest.getDefaultInstance(),
          CreateResponse.getDefaultInstance());
  public static final RpcMethod<OpenRequest, OpenResponse> OPEN =
      define(
          METADATA_SERVICE,
          "Open",
          OpenRequest.getDefaultInstance(),
          OpenResponse.getDefaultInstance());
  public static final RpcMethod<ReadDirRequest, ReadDirResponse> READ_DIR =
      define(
          METADATA_SERVICE,
          "ReadDir",
          ReadDirRequest.getDefaultInstance(),
          ReadDirResponse.getDefaultInstance());
  public static final RpcMethod<RenameRequest, RenameResponse> RENAME =
      define(
          METADATA_SERVICE,
          "Rename",
          RenameRequest.getDefaultInstance(),
          RenameResponse.getDefaultInstance());
  public static final RpcMethod<UnlinkRequest, UnlinkResponse> UNLINK =
      define(
          METADATA_SERVICE,
          "Unlink",
          UnlinkRequest.getDefaultInstance(),
          UnlinkResponse.getDefaultInstance());
  public static final RpcMethod<RmdirRequest, RmdirResponse> RMDIR =
      define(
          METADATA_SERVICE,
          "Rmdir",
          RmdirRequest.getDefaultInstance(),
          RmdirResponse.getDefaultInstance());
  public static final RpcMethod<DeleteRequest, DeleteResponse> DELETE =
      define(
          METADATA_SERVICE,
          "Delete",
          DeleteRequest.getDefaultInstance(),
          DeleteResponse.getDefaultInstance());
  public static final RpcMethod<LinkRequest, LinkResponse> LINK =
      define(
          METADATA_SERVICE,
          "Link",
          LinkRequest.getDefaultInstance(),
          LinkResponse.getDefaultInstance());
  public static final RpcMethod<SymlinkRequest, SymlinkResponse> SYMLINK =
      define(
          METADATA_SERVICE,
          "Symlink",
          SymlinkRequest.getDefaultInstance(),
          SymlinkResponse.getDefaultInstance());
  public static final RpcMethod<ReadLinkRequest, ReadLinkResponse> READ_LINK =
      define(
          METADATA_SERVICE,
          "ReadLink",
          ReadLinkRequest.getDefaultInstance(),
          ReadLinkResponse.getDefaultInstance());
  public static final RpcMethod<GetXattrRequest, GetXattrResponse> GET_XATTR =
      define(
          METADATA_SERVICE,
          "GetXattr",
          GetXattrRequest.getDefaultInstance(),
          GetXattrResponse.getDefaultInstance());
  public static final RpcMethod<SetXattrRequest, SetXattrResponse> SET_XATTR =
      define(
          METADATA_SERVICE,
          "SetXattr",
          SetXattrRequest.getDefaultInstance(),
          SetXattrResponse.getDefaultInstance());
  public static final RpcMethod<ListXattrsRequest, ListXattrsResponse> LIST_XATTRS =
      define(
          METADATA_SERVICE,
          "ListXattrs",
          ListXattrsRequest.getDefaultInstance(),
          ListXattrsResponse.getDefaultInstance());
  public static final RpcMethod<RemoveXattrRequest, RemoveXattrResponse> REMOVE_XATTR =
      define(
          METADATA_SERVICE,
          "RemoveXattr",
          RemoveXattrRequest.getDefaultInstance(),
          RemoveXattrResponse.getDefaultInstance());
  public static final RpcMethod<StatFsRequest, StatFsResponse> STAT_FS =
      define(
          METADATA_SERVICE,
          "StatFs",
          StatFsRequest.getDefaultInstance(),
          StatFsResponse.getDefaultInstance());
  public static final RpcMethod<ContentSummaryRequest, ContentSummaryResponse> CONTENT_SUMMARY =
      define(
          METADATA_SERVICE,
          "ContentSummary",
          ContentSummaryRequest.getDefaultInstance(),
          ContentSummaryResponse.getDefaultInstance());
  public static final RpcMethod<ConcatRequest, ConcatResponse> CONCAT =
      define(
          METADATA_SERVICE,
          "Concat",
          ConcatRequest.getDefaultInstance(),
          ConcatResponse.getDefaultInstance());
  public static final RpcMethod<CommitRequest, CommitResponse> COMMIT =
      define(
          METADATA_SERVICE,
          "Commit",
          CommitRequest.getDefaultInstance(),
          CommitResponse.getDefaultInstance());
  public static final RpcMethod<UpdateLengthRequest, UpdateLengthResponse> UPDATE_LENGTH =
      define(
          METADATA_SERVICE,
          "UpdateLength",
          UpdateLengthRequest.getDefaultInstance(),
          UpdateLengthResponse.getDefaultInstance());
  public static final RpcMethod<RenewLeaseRequest, RenewLeaseResponse> RENEW_LEASE =
      define(
          METADATA_SERVICE,
          "RenewLease",
          RenewLeaseRequest.getDefaultInstance(),
          RenewLeaseResponse.getDefaultInstance());
  public static final RpcMethod<RecoverLeaseRequest, RecoverLeaseResponse> RECOVER_LEASE =
      define(
          METADATA_SERVICE,
          "RecoverLease",
          RecoverLeaseRequest.getDefaultInstance(),
          RecoverLeaseResponse.getDefaultInstance());
  public static final RpcMethod<GetLayoutPolicyRequest, GetLayoutPolicyResponse> GET_LAYOUT_POLICY =
      define(
          METADATA_SERVICE,
          "GetLayoutPolicy",
          GetLayoutPolicyRequest.getDefaultInstance(),
          GetLayoutPolicyResponse.getDefaultInstance());
  public static final RpcMethod<SetLayoutPolicyRequest, SetLayoutPolicyResponse> SET_LAYOUT_POLICY =
      define(
          METADATA_SERVICE,
          "SetLayoutPolicy",
          SetLayoutPolicyRequest.getDefaultInstance(),
          SetLayoutPolicyResponse.getDefaultInstance());
  public static final RpcMethod<GetChunkLocationsRequest, GetChunkLocationsResponse>
      GET_CHUNK_LOCATIONS =
          define(
              METADATA_SERVICE,
              "GetChunkLocations",
              GetChunkLocationsRequest.getDefaultInstance(),
              GetChunkLocationsResponse.getDefaultInstance());
  public static final RpcMethod<AllocateChunkSetRequest, AllocateChunkSetResponse>
      ALLOCATE_CHUNK_SET =
          define(
              METADATA_SERVICE,
              "AllocateChunkSet",
              AllocateChunkSetRequest.getDefaultInstance(),
              AllocateChunkSetResponse.getDefaultInstance());
  public static final RpcMethod<ReplaceReplicaRequest, ReplaceReplicaResponse> REPLACE_REPLICA =
      define(
          METADATA_SERVICE,
          "ReplaceReplica",
          ReplaceReplicaRequest.getDefaultInstance(),
          ReplaceReplicaResponse.getDefaultInstance());
  public static final RpcMethod<ReportBadReplicaRequest, ReportBadReplicaResponse>
      REPORT_BAD_REPLICA =
          define(
              METADATA_SERVICE,
              "ReportBadReplica",
              ReportBadReplicaRequest.getDefaultInstance(),
              ReportBadReplicaResponse.getDefaultInstance());
  public static final RpcMethod<GetServerDefaultsRequest, GetServerDefaultsResponse>
      GET_SERVER_DEFAULTS =
          define(
              METADATA_SERVICE,
              "GetServerDefaults",
              GetServerDefaultsRequest.getDefaultInstance(),
              GetServerDefaultsResponse.getDefaultInstance());
  public static final RpcMethod<AccessRequest, AccessResponse> ACCESS =
      define(
          METADATA_SERVICE,
          "Access",
          AccessRequest.getDefaultInstance(),
          AccessResponse.getDefaultInstance());

  public static final RpcMethod<MknodRequest, MknodResponse> MKNOD =
      define(
          METADATA_SERVICE,
          "Mknod",
          MknodRequest.getDefaultInstance(),
          MknodResponse.getDefaultInstance());

  public static final RpcMethod<SetReplicationRequest, SetReplicationResponse> SET_REPLICATION =
      define(
          METADATA_SERVICE,
          "SetReplication",
          SetReplicationRequest.getDefaultInstance(),
          SetReplicationResponse.getDefaultInstance());
  public static final RpcMethod<GetDelegationTokenRequest, GetDelegationTokenResponse>
      GET_DELEGATION_TOKEN =
          define(
              METADATA_SERVICE,
              "GetDelegationToken",
              GetDelegationTokenRequest.getDefaultInstance(),
              GetDelegationTokenResponse.getDefaultInstance());
  public static final RpcMethod<RenewDelegationTokenRequest, RenewDelegationTokenResponse>
      RENEW_DELEGATION_TOKEN =
          define(
              METADATA_SERVICE,
              "RenewDelegationToken",
              RenewDelegationTokenRequest.getDefaultInstance(),
              RenewDelegationTokenResponse.getDefaultInstance());
  public static final RpcMethod<CancelDelegationTokenRequest, CancelDelegationTokenResponse>
      CANCEL_DELEGATION_TOKEN =
          define(
              METADATA_SERVICE,
              "CancelDelegationToken",
              CancelDelegationTokenRequest.getDefaultInstance(),
              CancelDelegationTokenResponse.getDefaultInstance());
  public static final RpcMethod<SetAclRequest, SetAclResponse> SET_ACL =
      define(
          METADATA_SERVICE,
          "SetAcl",
          SetAclRequest.getDefaultInstance(),
          SetAclResponse.getDefaultInstance());
  public static final RpcMethod<GetAclRequest, GetAclResponse> GET_ACL =
      define(
          METADATA_SERVICE,
          "GetAcl",
          GetAclRequest.getDefaultInstance(),
          GetAclResponse.getDefaultInstance());

  // ---- ClusterService (200-249): membership and chunk bookkeeping, data server -> MDS -----------
  public static final RpcMethod<RegisterDataServerRequest, RegisterDataServerResponse>
      REGISTER_DATA_SERVER =
          define(
              CLUSTER_SERVICE,
              "RegisterDataServer",
              RegisterDataServerRequest.getDefaultInstance(),
              RegisterDataServerResponse.getDefaultInstance());
  public static final RpcMethod<HeartbeatRequest, HeartbeatResponse> HEARTBEAT =
      define(
          CLUSTER_SERVICE,
          "Heartbeat",
          HeartbeatRequest.getDefaultInstance(),
          HeartbeatResponse.getDefaultInstance());
  public static final RpcMethod<ChunkReportRequest, ChunkReportResponse> CHUNK_REPORT =
      define(
          CLUSTER_SERVICE,
          "ChunkReport",
          ChunkReportRequest.getDefaultInstance(),
          ChunkReportResponse.getDefaultInstance());
  public static final RpcMethod<ConfirmChunksRequest, ConfirmChunksResponse> CONFIRM_CHUNKS =
      define(
          CLUSTER_SERVICE,
          "ConfirmChunks",
          ConfirmChunksRequest.getDefaultInstance(),
          ConfirmChunksResponse.getDefaultInstance());
  public static final RpcMethod<ReportCorruptReplicasRequest, ReportCorruptReplicasResponse>
      REPORT_CORRUPT_REPLICAS =
          define(
              CLUSTER_SERVICE,
              "ReportCorruptReplicas",
              ReportCorruptReplicasRequest.getDefaultInstance(),
              ReportCorruptReplicasResponse.getDefaultInstance());
  public static final RpcMethod<ReplicaChangesRequest, ReplicaChangesResponse> REPLICA_CHANGES =
      define(
          CLUSTER_SERVICE,
          "ReplicaChanges",
          ReplicaChangesRequest.getDefaultInstance(),
          ReplicaChangesResponse.getDefaultInstance());

  // ---- AdminService (400-449): operators' calls, served by the MDS ------------------------------
  public static final RpcMethod<FsckRequest, FsckResponse> FSCK =
      define(
          ADMIN_SERVICE,
          "Fsck",
          FsckRequest.getDefaultInstance(),
          FsckResponse.getDefaultInstance());
  public static final RpcMethod<ClusterReportRequest, ClusterReportResponse> CLUSTER_REPORT =
      define(
          ADMIN_SERVICE,
          "ClusterReport",
          ClusterReportRequest.getDefaultInstance(),
          ClusterReportResponse.getDefaultInstance());
  public static final RpcMethod<SetServerStateRequest, SetServerStateResponse> SET_SERVER_STATE =
      define(
          ADMIN_SERVICE,
          "SetServerState",
          SetServerStateRequest.getDefaultInstance(),
          SetServerStateResponse.getDefaultInstance());
  public static final RpcMethod<HaStatusRequest, HaStatusResponse> HA_STATUS =
      define(
          ADMIN_SERVICE,
          "HaStatus",
          HaStatusRequest.getDefaultInstance(),
          HaStatusResponse.getDefaultInstance());
  public static final RpcMethod<FailoverRequest, FailoverResponse> FAILOVER =
      define(
          ADMIN_SERVICE,
          "Failover",
          FailoverRequest.getDefaultInstance(),
          FailoverResponse.getDefaultInstance());
  public static final RpcMethod<HaSnapshotRequest, HaSnapshotResponse> HA_SNAPSHOT =
      define(
          ADMIN_SERVICE,
          "HaSnapshot",
          HaSnapshotRequest.getDefaultInstance(),
          HaSnapshotResponse.getDefaultInstance());
  public static final RpcMethod<HaSnapshotReadRequest, HaSnapshotReadResponse> HA_SNAPSHOT_READ =
      define(
          ADMIN_SERVICE,
          "HaSnapshotRead",
          HaSnapshotReadRequest.getDefaultInstance(),
          HaSnapshotReadResponse.getDefaultInstance());

  // ---- DataService (300-399): chunk I/O and MDS commands, served by data servers ----------------
  public static final RpcMethod<WriteChunkRequest, WriteChunkResponse> WRITE_CHUNK =
      define(
          DATA_SERVICE,
          "WriteChunk",
          WriteChunkRequest.getDefaultInstance(),
          WriteChunkResponse.getDefaultInstance());
  public static final RpcMethod<ReadChunkRequest, ReadChunkResponse> READ_CHUNK =
      define(
          DATA_SERVICE,
          "ReadChunk",
          ReadChunkRequest.getDefaultInstance(),
          ReadChunkResponse.getDefaultInstance());
  public static final RpcMethod<SyncChunkRequest, SyncChunkResponse> SYNC_CHUNK =
      define(
          DATA_SERVICE,
          "SyncChunk",
          SyncChunkRequest.getDefaultInstance(),
          SyncChunkResponse.getDefaultInstance());
  public static final RpcMethod<FinalizeChunkRequest, FinalizeChunkResponse> FINALIZE_CHUNK =
      define(
          DATA_SERVICE,
          "FinalizeChunk",
          FinalizeChunkRequest.getDefaultInstance(),
          FinalizeChunkResponse.getDefaultInstance());
  public static final RpcMethod<GetChunkInfoRequest, GetChunkInfoResponse> GET_CHUNK_INFO =
      define(
          DATA_SERVICE,
          "GetChunkInfo",
          GetChunkInfoRequest.getDefaultInstance(),
          GetChunkInfoResponse.getDefaultInstance());
  public static final RpcMethod<ChecksumChunkRequest, ChecksumChunkResponse> CHECKSUM_CHUNK =
      define(
          DATA_SERVICE,
          "ChecksumChunk",
          ChecksumChunkRequest.getDefaultInstance(),
          ChecksumChunkResponse.getDefaultInstance());
  public static final RpcMethod<DeleteChunksRequest, DeleteChunksResponse> DELETE_CHUNKS =
      define(
          DATA_SERVICE,
          "DeleteChunks",
          DeleteChunksRequest.getDefaultInstance(),
          DeleteChunksResponse.getDefaultInstance());
  public static final RpcMethod<CopyChunkRequest, CopyChunkResponse> COPY_CHUNK =
      define(
          DATA_SERVICE,
          "CopyChunk",
          CopyChunkRequest.getDefaultInstance(),
          CopyChunkResponse.getDefaultInstance());
  public static final RpcMethod<TruncateChunkRequest, TruncateChunkResponse> TRUNCATE_CHUNK =
      define(
          DATA_SERVICE,
          "TruncateChunk",
          TruncateChunkRequest.getDefaultInstance(),
          TruncateChunkResponse.getDefaultInstance());
  public static final RpcMethod<OpenLocalReplicaRequest, OpenLocalReplicaResponse>
      OPEN_LOCAL_REPLICA =
          define(
              DATA_SERVICE,
              "OpenLocalReplica",
              OpenLocalReplicaRequest.getDefaultInstance(),
              OpenLocalReplicaResponse.getDefaultInstance());
  private final int id;
  private final MethodDescriptor descriptor;
  private final Q requestPrototype;
  private final R responsePrototype;

  private RpcMethod(int id, MethodDescriptor descriptor, Q requestPrototype, R responsePrototype) {
    this.id = id;
    this.descriptor = descriptor;
    this.requestPrototype = requestPrototype;
    this.responsePrototype = responsePrototype;
  }

  private static <Q extends Message, R extends Message> RpcMethod<Q, R> define(
      ServiceDescriptor service, String name, Q request, R response) {
    MethodDescriptor md = service.findMethodByName(name);
    if (md == null) {
      throw new IllegalStateException("no method " + name + " in " + service.getFullName());
    }
    if (!md.getInputType().equals(request.getDescriptorForType())
        || !md.getOutputType().equals(response.getDescriptorForType())) {
      throw new IllegalStateException("types of " + md.getFullName() + " differ from the proto");
    }
    int id = md.getOptions().getExtension(CommonProtos.methodId);
    if (id <= 0 || id > 0xFFFF) {
      throw new IllegalStateException(md.getFullName() + " has no valid (braid.method_id)");
    }
    RpcMethod<Q, R> m = new RpcMethod<>(id, md, request, response);
    RpcMethod<?, ?> previous = BY_ID.putIfAbsent(id, m);
    if (previous != null) {
      throw new IllegalStateException(
          "method id " + id + " used by " + previous.fullName() + " and " + md.getFullName());
    }
    return m;
  }

  /** The wire id, an unsigned 16-bit value. */
  public int id() {
    return id;
  }

  /** Whether a request frame of this method may carry a raw payload. */
  public boolean requestPayload() {
    return descriptor.getOptions().getExtension(CommonProtos.requestPayload);
  }

  /** Whether a response frame of this method may carry a raw payload. */
  public boolean responsePayload() {
    return descriptor.getOptions().getExtension(CommonProtos.responsePayload);
  }

  /** The proto name, such as {@code braid.MetadataService.Create}. */
  public String fullName() {
    return descriptor.getFullName();
  }

  public MethodDescriptor descriptor() {
    return descriptor;
  }

  @SuppressWarnings("unchecked")
  public Parser<Q> requestParser() {
    return (Parser<Q>) requestPrototype.getParserForType();
  }

  @SuppressWarnings("unchecked")
  public Parser<R> responseParser() {
    return (Parser<R>) responsePrototype.getParserForType();
  }

  public Q requestPrototype() {
    return requestPrototype;
  }

  public R responsePrototype() {
    return responsePrototype;
  }

  /** The method with this wire id, or {@code null} if none is registered. */
  public static @Nullable RpcMethod<?, ?> byId(int id) {
    return BY_ID.get(id);
  }

  /** Every registered method, in declaration order. */
  public static Collection<RpcMethod<?, ?>> all() {
    return Collections.unmodifiableCollection(BY_ID.values());
  }

  @Override
  public String toString() {
    return descriptor.getName() + "#" + id;
  }
}
