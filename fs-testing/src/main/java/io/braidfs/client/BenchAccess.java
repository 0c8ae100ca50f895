package io.braidfs.client;

import io.braidfs.client.internal.data.ChunkService;
import io.braidfs.common.rpc.RpcClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * The test bench's one door into fs-client's package-private parts: the data-path tests and
 * benchmarks drive {@code StripedWriter} and {@code StripedReader} with the client's own metadata
 * calls, whose class is not public. Lives in fs-testing, in this package only for that access.
 *
 * <p>Thread-safety: stateless.
 */
public final class BenchAccess {
  private BenchAccess() {}

  /**
   * The client's metadata calls (with its failover) to the MDS at {@code mds}, over {@code rpc}, as
   * the data path uses them.
   */
  public static ChunkService chunkService(
      RpcClient rpc, List<InetSocketAddress> mds, Duration failoverTimeout) {
    return new MetadataClient(rpc, mds, failoverTimeout);
  }
}
