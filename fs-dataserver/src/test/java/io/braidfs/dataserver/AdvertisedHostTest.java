package io.braidfs.dataserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host a data server registers: checked before it starts, so that a server other hosts cannot
 * reach refuses to start and names the setting to set. Name resolution is given as a table here;
 * the last test asks this machine's own resolver.
 */
class AdvertisedHostTest {
  private static final InetSocketAddress WILDCARD = new InetSocketAddress("0.0.0.0", 7500);

  @TempDir Path dir;

  private static InetAddress ip(String name, int... bytes) throws UnknownHostException {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return InetAddress.getByAddress(name, b);
  }

  /** A resolver that knows only {@code table}. */
  private static AdvertisedHost.Resolver resolver(Map<String, InetAddress[]> table) {
    return host -> {
      InetAddress[] a = table.get(host);
      if (a == null) {
        throw new UnknownHostException(host + ": Name or service not known");
      }
      return a;
    };
  }

  @Test
  void aWildcardBindAdvertisesAMachineNameOthersCanReach() throws Exception {
    var table = Map.of("node7", new InetAddress[] {ip("node7", 10, 0, 0, 7)});
    assertThat(AdvertisedHost.choose("", WILDCARD, resolver(table), () -> "node7"))
        .isEqualTo("node7");
  }

  @Test
  void aMachineNameThatResolvesToLoopbackIsRefused() throws Exception {
    var table =
        Map.of(
            "debian",
            new InetAddress[] {ip("debian", 127, 0, 1, 1)},
            "mixed",
            new InetAddress[] {ip("mixed", 10, 0, 0, 8), ip("mixed", 127, 0, 1, 1)});
    for (String name : new String[] {"debian", "mixed"}) {
      assertThatThrownBy(() -> AdvertisedHost.choose("", WILDCARD, resolver(table), () -> name))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "listening on a wildcard address with braid.dataserver.advertised-host unset, and"
                  + " this machine's name '"
                  + name
                  + "' resolves to ")
          .hasMessageContaining("127.0.1.1")
          .hasMessageEndingWith(
              "set braid.dataserver.advertised-host to a name or address other hosts reach this"
                  + " server by");
    }
  }

  @Test
  void aMachineNameThatDoesNotResolveIsRefused() {
    assertThatThrownBy(
            () -> AdvertisedHost.choose("", WILDCARD, resolver(Map.of()), () -> "nowhere"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("this machine's name does not resolve")
        .hasMessageContaining("set braid.dataserver.advertised-host");
  }

  @Test
  void aConfiguredHostMustResolveAndIsThenUsedAsGiven() throws Exception {
    var table = Map.of("ds1.example", new InetAddress[] {ip("ds1.example", 10, 1, 1, 1)});
    assertThat(
            AdvertisedHost.choose(" ds1.example ", WILDCARD, resolver(table), () -> "never-asked"))
        .isEqualTo("ds1.example");
    assertThatThrownBy(
            () -> AdvertisedHost.choose("typo.example", WILDCARD, resolver(table), () -> "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "braid.dataserver.advertised-host 'typo.example' does not resolve: typo.example");
  }

  @Test
  void aSpecificListeningAddressIsAdvertisedAsItIs() throws Exception {
    assertThat(
            AdvertisedHost.choose(
                "",
                new InetSocketAddress("127.0.0.1", 0),
                resolver(Map.of()),
                () -> {
                  throw new UnknownHostException("not asked");
                }))
        .isEqualTo("127.0.0.1");
  }

  /** A real server with a wildcard bind, on this machine's own resolver. */
  @Test
  void aServerOnAWildcardStartsOnlyIfThisMachinesNameIsReachable() throws Exception {
    BraidConfig config =
        BraidConfig.builder()
            .set(DataServerConfigKeys.ADDRESS, "0.0.0.0:0")
            .set(DataServerConfigKeys.DIRS.name(), dir.toString())
            .set(DataServerConfigKeys.MDS.name(), "127.0.0.1:1")
            .set(DataServerConfigKeys.REGISTER_RETRY.name(), "1m")
            .build();
    boolean reachable;
    try {
      InetAddress[] mine = InetAddress.getAllByName(InetAddress.getLocalHost().getHostName());
      reachable = Arrays.stream(mine).noneMatch(InetAddress::isLoopbackAddress);
    } catch (UnknownHostException e) {
      reachable = false;
    }
    try (DataServer s = new DataServer(config, "ds-wild")) {
      if (reachable) {
        s.start();
        assertThat(s.address().getAddress().isAnyLocalAddress()).isTrue();
      } else {
        assertThatThrownBy(s::start)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("set braid.dataserver.advertised-host");
      }
    }
    // The same server with the host set starts wherever that host resolves.
    try (DataServer s =
        new DataServer(
            config.toBuilder().set(DataServerConfigKeys.ADVERTISED_HOST, "127.0.0.1").build(),
            "ds-wild-set")) {
      s.start();
    }
    try (DataServer s =
        new DataServer(
            config.toBuilder()
                .set(DataServerConfigKeys.ADVERTISED_HOST, "no-such-host.invalid")
                .build(),
            "ds-wild-bad")) {
      assertThatThrownBy(s::start)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "braid.dataserver.advertised-host 'no-such-host.invalid' does not resolve");
    }
  }
}
