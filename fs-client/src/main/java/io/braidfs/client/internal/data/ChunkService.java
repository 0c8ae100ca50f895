package io.braidfs.client.internal.data;

import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import java.io.IOException;
import java.util.List;

/**
 * The MDS calls the data path makes: where chunks are, new chunk sets and replacement replicas for
 * writers, length commits, and reports of bad replicas. Implemented by the client's metadata
 * client, with MDS failover.
 *
 * <p>Each call blocks the calling thread (never an event loop) until the MDS answers. A call that
 * fails with a timeout or a lost connection may or may not have been applied; all of these are safe
 * to repeat with the same arguments.
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface ChunkService {
  GetChunkLocationsResponse locations(GetChunkLocationsRequest request) throws IOException;

  AllocateChunkSetResponse allocate(AllocateChunkSetRequest request) throws IOException;

  ReplaceReplicaResponse replaceReplica(ReplaceReplicaRequest request) throws IOException;

  UpdateLengthResponse updateLength(UpdateLengthRequest request) throws IOException;

  CommitResponse commit(CommitRequest request) throws IOException;

  /** Reports replicas that failed verification; best effort, never blocks, never fails. */
  void reportBadReplicas(List<BadReplica> replicas);
}
