package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static Topology of(String mapping) {
    return Topology.from(BraidConfig.fromMap(Map.of("braid.mds.cluster.topology", mapping)));
  }

  @Test
  void aMappedHostsRackWinsOverWhatItsServersReport() {
    Topology t = of("10.0.0.7=/dc1/r2, Host-B=/dc1/r3");
    assertThat(t.rackOf("10.0.0.7", "/reported")).isEqualTo("/dc1/r2");
    assertThat(t.rackOf("host-b", "")).isEqualTo("/dc1/r3");
    assertThat(t.rackOf("10.0.0.8", "/reported")).isEqualTo("/reported");
    assertThat(t.rackOf("10.0.0.8", "")).isEqualTo(Topology.DEFAULT_RACK);
    assertThat(Topology.none().rackOf("h", " ")).isEqualTo(Topology.DEFAULT_RACK);
  }

  @Test
  void anEntryThatIsNotHostEqualsRackIsRefusedNamingIt() {
    assertThatThrownBy(() -> of("10.0.0.7:/r1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'10.0.0.7:/r1'");
    assertThatThrownBy(() -> of("h=r1")).hasMessageContaining("host=/rack");
  }
}
