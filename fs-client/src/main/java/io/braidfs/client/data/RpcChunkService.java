package io.braidfs.client.data;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.ReportBadReplicaRequest;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ChunkService} over one MDS address, without failover.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RpcChunkService implements ChunkService {
  private static final Logger LOG = LoggerFactory.getLogger(RpcChunkService.class);

  private final RpcClient rpc;
  private final InetSocketAddress mds;

  public RpcChunkService(RpcClient rpc, InetSocketAddress mds) {
    this.rpc = rpc;
    this.mds = mds;
  }

  @Override
  public GetChunkLocationsResponse locations(GetChunkLocationsRequest request) throws IOException {
    return rpc.callSync(mds, RpcMethod.GET_CHUNK_LOCATIONS, request);
  }

  @Override
  public AllocateChunkSetResponse allocate(AllocateChunkSetRequest request) throws IOException {
    return rpc.callSync(mds, RpcMethod.ALLOCATE_CHUNK_SET, request);
  }

  @Override
  public ReplaceReplicaResponse replaceReplica(ReplaceReplicaRequest request) throws IOException {
    return rpc.callSync(mds, RpcMethod.REPLACE_REPLICA, request);
  }

  @Override
  public UpdateLengthResponse updateLength(UpdateLengthRequest request) throws IOException {
    return rpc.callSync(mds, RpcMethod.UPDATE_LENGTH, request);
  }

  @Override
  public CommitResponse commit(CommitRequest request) throws IOException {
    return rpc.callSync(mds, RpcMethod.COMMIT, request);
  }

  @Override
  public void reportBadReplicas(List<BadReplica> replicas) {
    rpc.call(
            mds,
            RpcMethod.REPORT_BAD_REPLICA,
            ReportBadReplicaRequest.newBuilder().addAllReplicas(replicas).build())
        .whenComplete(
            (response, failure) -> {
              if (response != null) {
                response.close();
              } else {
                LOG.warn("{}: cannot report bad replicas: {}", rpc.name(), failure.toString());
              }
            });
  }
}
