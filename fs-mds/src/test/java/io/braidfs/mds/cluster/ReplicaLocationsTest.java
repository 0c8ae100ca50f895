package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.proto.ReplicaLocation;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaLocationsTest {
  private static DataServer server(int id, String host, int port, String rack) {
    return new DataServer(
        id, host, port, rack, List.of(), DataServer.Usage.unreported(1 << 30), 0, true);
  }

  @Test
  void aServerSeenAgainGetsTheSameMessageWithItsAddress() {
    ReplicaLocations locations = new ReplicaLocations();
    ReplicaLocation first = locations.of(server(7, "h1", 9870, "/r1"));
    assertThat(first).isEqualTo(server(7, "h1", 9870, "/r1").toReplicaLocation());
    // A later snapshot of the same server (new usage, new heartbeat) shares the message.
    assertThat(locations.of(server(7, "h1", 9870, "/r1"))).isSameAs(first);
    assertThat(locations.of(server(8, "h2", 9870, "/r1")).getServerId()).isEqualTo(8);
    assertThat(locations.of(server(7, "h1", 9870, "/r1"))).isSameAs(first);
  }

  @Test
  void aServerBackAtAnotherAddressOrRackGetsANewMessage() {
    ReplicaLocations locations = new ReplicaLocations();
    locations.of(server(7, "h1", 9870, "/r1"));
    for (DataServer moved :
        List.of(
            server(7, "h2", 9870, "/r1"),
            server(7, "h2", 9871, "/r1"),
            server(7, "h2", 9871, "/r2"))) {
      ReplicaLocation location = locations.of(moved);
      assertThat(location).isEqualTo(moved.toReplicaLocation());
      assertThat(location.toByteString()).isEqualTo(moved.toReplicaLocation().toByteString());
    }
  }
}
