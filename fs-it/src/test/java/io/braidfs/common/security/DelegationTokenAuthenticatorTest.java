package io.braidfs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloAuthenticator.Identity;
import io.braidfs.common.rpc.HelloCredentials;
import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A delegation token's Hello checked by an MDS's authenticator, without a cluster: the identity it
 * yields, the server's proof back, and each refusal (replay, clock, proof, another user, the
 * per-token bound on Hellos in the replay window).
 */
class DelegationTokenAuthenticatorTest {
  private static final InetSocketAddress MDS = new InetSocketAddress("127.0.0.1", 7400);
  private static final byte[] KEY = new byte[64];

  private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());

  private final DelegationTokenAuthenticator mds =
      new DelegationTokenAuthenticator(
          "mds",
          (id, identifier, now) ->
              DelegationTokenSecrets.halfPassword(DelegationTokenSecrets.mdsHalf(KEY), identifier),
          GroupLookup.parse("alice=staff"),
          Set.of("braid"),
          clock::get);

  private static byte[] identifier(String owner, int sequence) {
    long now = System.currentTimeMillis();
    return new DelegationTokenIdentifier(owner, "yarn", "", now, now + 60_000, sequence, 1)
        .toBytes();
  }

  private static HelloRequest hello(byte[] identifier, String user) throws IOException {
    HelloCredentials creds =
        new DelegationTokenCredentials(
            identifier, DelegationTokenSecrets.password(KEY, identifier), a -> true);
    HelloRequest.Builder b =
        HelloRequest.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setUser(user);
    creds.begin(MDS).fill(b);
    return b.build();
  }

  private static Status status(Throwable e) {
    return StatusExceptions.statusOf(e);
  }

  @Test
  void aGoodHelloActsAsTheOwnerAndAReplayIsRefused() throws IOException {
    HelloRequest h = hello(identifier("alice", 1), "");
    Identity who = mds.authenticate(h, MDS);
    assertThat(who.user()).isEqualTo("alice");
    assertThat(who.groups()).containsExactly("staff");
    assertThat(who.principal()).isEqualTo("token:1/alice");
    assertThat(who.replyToken()).hasSize(32);
    assertThatThrownBy(() -> mds.authenticate(h, MDS))
        .satisfies(e -> assertThat(status(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("replayed");
  }

  @Test
  void badClocksProofsUsersAndServiceOwnersAreRefused() throws IOException {
    HelloRequest h = hello(identifier("alice", 2), "");
    clock.addAndGet(6 * 60_000);
    assertThatThrownBy(() -> mds.authenticate(h, MDS))
        .satisfies(e -> assertThat(status(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("check both clocks");
    clock.set(System.currentTimeMillis());
    HelloRequest.Builder tampered = hello(identifier("alice", 3), "").toBuilder();
    tampered.getDelegationTokenBuilder().setIdentifier(ByteString.copyFrom(identifier("bob", 3)));
    assertThatThrownBy(() -> mds.authenticate(tampered.build(), MDS))
        .satisfies(e -> assertThat(status(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("proof does not match");
    assertThatThrownBy(() -> mds.authenticate(hello(identifier("alice", 4), "root"), MDS))
        .satisfies(e -> assertThat(status(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("may not act as root");
    assertThatThrownBy(() -> mds.authenticate(hello(identifier("braid", 5), ""), MDS))
        .satisfies(e -> assertThat(status(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("service user");
  }

  @Test
  void oneTokenFloodingHellosCannotCrowdOutAnother() throws IOException {
    byte[] flood = identifier("alice", 6);
    int accepted = 0;
    IOException busy = null;
    for (int i = 0; i < 25_000 && busy == null; i++) {
      try {
        mds.authenticate(hello(flood, ""), MDS);
        accepted++;
      } catch (IOException e) {
        busy = e;
      }
    }
    assertThat(accepted).isEqualTo(20_000);
    assertThat(busy).isNotNull();
    assertThat(status(busy)).isEqualTo(Status.BUSY);
    assertThat(busy).hasMessageContaining("too many Hellos of delegation token 6");
    assertThat(mds.authenticate(hello(identifier("alice", 7), ""), MDS).user()).isEqualTo("alice");
  }
}
