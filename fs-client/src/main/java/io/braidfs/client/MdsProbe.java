package io.braidfs.client;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.Tls;
import io.braidfs.proto.HaStatusRequest;
import io.braidfs.proto.HaStatusResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Asks MDSs about themselves, each address on its own and never failed over ({@code braid admin
 * ha}): every MDS answers, a standby too, so this sees each replica's role, epoch and journal
 * index, and needs no leader. Unlike {@link BraidClient} it expects no cluster: an MDS of another
 * cluster answers too, naming its own ({@link MdsStatus#clusterId()}).
 *
 * <pre>{@code
 * try (MdsProbe p = MdsProbe.open(config, "root")) {
 *   for (MdsProbe.Answer a : p.statusOfAll()) {
 *     System.out.println(a.address() + ": " + (a.status() != null ? a.status().role() : a.failure()));
 *   }
 * }
 * }</pre>
 *
 * <p>Each call waits at most the smaller of {@code braid.client.mds.failover-timeout} and {@code
 * braid.rpc.client.call-timeout}.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MdsProbe implements AutoCloseable {
  private final RpcClient rpc;
  private final List<String> addresses;
  private final Duration timeout;

  private MdsProbe(RpcClient rpc, List<String> addresses, Duration timeout) {
    this.rpc = rpc;
    this.addresses = addresses;
    this.timeout = timeout;
  }

  /**
   * A probe of the MDSs {@code config} names ({@code braid.client.mds}), calling as {@code user}.
   *
   * @throws IllegalArgumentException naming the key whose value is invalid
   * @throws UncheckedIOException if Kerberos log-in or the TLS files fail (braid.security.*)
   */
  public static MdsProbe open(BraidConfig config, String user) {
    ClientOptions options = ClientOptions.from(config); // checks every address
    RpcOptions rpcOptions = RpcOptions.from(config);
    Duration timeout =
        options.failoverTimeout().compareTo(rpcOptions.callTimeout()) < 0
            ? options.failoverTimeout()
            : rpcOptions.callTimeout();
    RpcClient r;
    try {
      // Secure clusters: the same proof and encryption as a BraidClient's.
      r =
          RpcClient.builder("mds-probe")
              .user(user)
              .options(rpcOptions)
              .credentials(Security.clientCredentials(config, "localhost"))
              .tls(Tls.forClient(config, "mds-probe"))
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    r.start();
    return new MdsProbe(r, List.copyOf(config.get(ClientConfigKeys.MDS)), timeout);
  }

  /** The MDS addresses configured ({@code braid.client.mds}), in order. */
  public List<String> addresses() {
    return addresses;
  }

  /**
   * What the MDS at {@code address} says of itself.
   *
   * @param address {@code host:port}, configured or not
   * @throws IOException if it did not answer (UNAVAILABLE, DEADLINE_EXCEEDED) or refused
   * @throws IllegalArgumentException if {@code address} is not {@code host:port}
   */
  public MdsStatus status(String address) throws IOException {
    return answer(ask(address));
  }

  /**
   * What every configured MDS says of itself, asked all at once: one answer per address, in order,
   * an MDS that did not answer included.
   */
  public List<Answer> statusOfAll() {
    List<CompletableFuture<RpcResponse<HaStatusResponse>>> calls = new ArrayList<>();
    for (String a : addresses) {
      calls.add(ask(a));
    }
    List<Answer> out = new ArrayList<>(addresses.size());
    for (int i = 0; i < addresses.size(); i++) {
      String a = addresses.get(i);
      try {
        out.add(new Answer(a, answer(calls.get(i)), null));
      } catch (IOException e) {
        out.add(new Answer(a, null, e));
      }
    }
    return List.copyOf(out);
  }

  private CompletableFuture<RpcResponse<HaStatusResponse>> ask(String address) {
    return rpc.call(
        HostPort.parse(address).toSocketAddress(),
        RpcMethod.HA_STATUS,
        HaStatusRequest.getDefaultInstance(),
        null,
        timeout);
  }

  private MdsStatus answer(CompletableFuture<RpcResponse<HaStatusResponse>> call)
      throws IOException {
    try (RpcResponse<HaStatusResponse> r = rpc.await(call)) {
      return Protos.mdsStatus(r.message());
    }
  }

  /** Closes the connections. */
  @Override
  public void close() {
    rpc.close();
  }

  /**
   * One MDS's answer, or why there is none.
   *
   * @param address the address asked, as configured
   * @param status what it said; null if it did not answer
   * @param failure why it did not answer (unreachable, timed out, refused); null if it did
   */
  public record Answer(String address, @Nullable MdsStatus status, @Nullable IOException failure) {
    /** Whether the MDS answered. */
    public boolean answered() {
      return status != null;
    }
  }
}
