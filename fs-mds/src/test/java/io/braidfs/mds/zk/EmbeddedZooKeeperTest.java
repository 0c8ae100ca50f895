package io.braidfs.mds.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryForever;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real ZooKeeper server in this JVM, used through a real Curator client: standalone on port 0,
 * restarted on its own data, with short sessions; start failures; a three-member ensemble that
 * survives losing a member.
 */
class EmbeddedZooKeeperTest {
  @TempDir Path tmp;

  private static BraidConfig standalone(String address, Path dir) {
    return BraidConfig.builder()
        .set(ZooKeeperConfigKeys.ADDRESS, address)
        .set(ZooKeeperConfigKeys.DIR, dir.toString())
        .build();
  }

  private static CuratorFramework connect(String connectString, int sessionTimeoutMs)
      throws InterruptedException {
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(sessionTimeoutMs)
            .connectionTimeoutMs(10_000)
            .retryPolicy(new RetryForever(100))
            .build();
    client.start();
    assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).as("connected").isTrue();
    return client;
  }

  @Test
  void servesOnAFreePortAcceptsShortSessionsAndComesBackWithItsDataOnTheSamePort()
      throws Exception {
    Path dir = tmp.resolve("zk");
    int port;
    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:0", dir))) {
      zk.start();
      port = zk.address().getPort();
      assertThat(port).isPositive();
      assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + port);
      assertThat(zk.mode()).isEqualTo("standalone");
      try (CuratorFramework client = connect(zk.connectString(), 1500)) {
        // Min session timeout is 2 ticks (1 s): a 1.5 s session is granted as asked.
        assertThat(client.getZookeeperClient().getZooKeeper().getSessionTimeout())
            .isBetween(1000, 1500);
        client.create().forPath("/braid", "epoch 7".getBytes(UTF_8));
        assertThat(new String(client.getData().forPath("/braid"), UTF_8)).isEqualTo("epoch 7");
      }
      assertThat(zk.whenStopped()).isNotDone();
    }

    // close() released the port: it can be bound again at once.
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:" + port, dir));
        CuratorFramework client = connectAfterStart(zk)) {
      assertThat(zk.address().getPort()).isEqualTo(port);
      assertThat(new String(client.getData().forPath("/braid"), UTF_8)).isEqualTo("epoch 7");
    }
  }

  private static CuratorFramework connectAfterStart(EmbeddedZooKeeper zk) throws Exception {
    zk.start();
    return connect(zk.connectString(), 1500);
  }

  @Test
  void whenStoppedCompletesOnClose() throws Exception {
    EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:0", tmp.resolve("zk")));
    zk.start();
    zk.close();
    assertThat(zk.whenStopped()).isDone();
    zk.close(); // idempotent
  }

  @Test
  void aSecondServerOnTheSameDirectoryFailsToStart() throws Exception {
    Path dir = tmp.resolve("zk");
    try (EmbeddedZooKeeper first = new EmbeddedZooKeeper(standalone("127.0.0.1:0", dir))) {
      first.start();
      EmbeddedZooKeeper second = new EmbeddedZooKeeper(standalone("127.0.0.1:0", dir));
      assertThatThrownBy(second::start)
          .isInstanceOf(IOException.class)
          .hasMessageContaining(dir.toString())
          .hasMessageContaining("in use by another ZooKeeper server");
      assertThat(second.whenStopped()).isDone();
      try (CuratorFramework client = connect(first.connectString(), 1500)) {
        assertThat(client.checkExists().forPath("/")).isNotNull();
      }
    }
  }

  @Test
  void aPortInUseFailsToStartAndFreesTheDirectory() throws Exception {
    Path dir = tmp.resolve("zk");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      EmbeddedZooKeeper zk =
          new EmbeddedZooKeeper(standalone("127.0.0.1:" + taken.getLocalPort(), dir));
      assertThatThrownBy(zk::start)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("Address already in use");
    }
    // The failed start closed everything: the directory is free for the next server.
    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:0", dir))) {
      zk.start();
    }
  }

  @Test
  void dataThatCannotBeLoadedFailsTheStartAndFreesThePort() throws Exception {
    Path dir = tmp.resolve("zk");
    int port = freePort();
    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:" + port, dir));
        CuratorFramework client = connectAfterStart(zk)) {
      client.create().forPath("/x");
    }
    // Transactions without the snapshot they follow: ZooKeeper refuses to load them, and it does
    // so after it started listening, so the failed start must free the port.
    try (DirectoryStream<Path> snapshots =
        Files.newDirectoryStream(dir.resolve("version-2"), "snapshot.*")) {
      for (Path s : snapshots) {
        Files.delete(s);
      }
    }
    EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:" + port, dir));
    assertThatThrownBy(zk::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("No snapshot found, but there are log entries");
    assertThat(zk.whenStopped()).isDone();
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }
  }

  @Test
  void aDirectoryThatIsAFileFailsToStart() throws Exception {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    EmbeddedZooKeeper zk = new EmbeddedZooKeeper(standalone("127.0.0.1:0", file));
    assertThatThrownBy(zk::start)
        .isInstanceOf(IOException.class)
        .hasMessage("ZooKeeper data dir " + file + " is not a directory");
  }

  @Test
  void aThreeMemberEnsembleServesAndSurvivesLosingAMember() throws Exception {
    List<String> servers = new ArrayList<>();
    for (int id = 1; id <= 3; id++) {
      servers.add(id + "=127.0.0.1:" + freePort() + ":" + freePort());
    }
    List<EmbeddedZooKeeper> members = new ArrayList<>();
    try {
      for (int id = 1; id <= 3; id++) {
        EmbeddedZooKeeper zk =
            new EmbeddedZooKeeper(
                BraidConfig.builder()
                    .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
                    .set(ZooKeeperConfigKeys.DIR, tmp.resolve("zk" + id).toString())
                    .set(ZooKeeperConfigKeys.SERVERS, servers)
                    .set(ZooKeeperConfigKeys.ID, id)
                    .build());
        members.add(zk);
        zk.start();
        assertThat(zk.mode()).isEqualTo("member " + id + " of 3");
        assertThat(Files.readString(tmp.resolve("zk" + id).resolve("myid")).strip())
            .isEqualTo(Integer.toString(id));
      }
      String ensemble =
          String.join(",", members.stream().map(EmbeddedZooKeeper::connectString).toList());
      try (CuratorFramework client = connect(ensemble, 6000)) {
        client.create().forPath("/before", new byte[] {1});
        members.get(0).close();
        client.create().forPath("/after", new byte[] {2});
        assertThat(client.getData().forPath("/before")).containsExactly(1);
      }
      // A member that missed a write catches up when it comes back on its data.
      EmbeddedZooKeeper back =
          new EmbeddedZooKeeper(
              BraidConfig.builder()
                  .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
                  .set(ZooKeeperConfigKeys.DIR, tmp.resolve("zk1").toString())
                  .set(ZooKeeperConfigKeys.SERVERS, servers)
                  .set(ZooKeeperConfigKeys.ID, 1)
                  .build());
      members.set(0, back);
      back.start();
      try (CuratorFramework client = connect(back.connectString(), 6000)) {
        client.sync().forPath("/after");
        assertThat(client.getData().forPath("/after")).containsExactly(2);
      }
    } finally {
      members.forEach(EmbeddedZooKeeper::close);
    }
  }

  @Test
  void aMemberRefusesAnotherMembersDirectory() throws Exception {
    List<String> servers =
        List.of("1=127.0.0.1:" + freePort() + ":" + freePort(), "2=127.0.0.1:1:2", "3=h:3:4");
    Path dir = tmp.resolve("zk");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("myid"), "2\n");
    EmbeddedZooKeeper zk =
        new EmbeddedZooKeeper(
            BraidConfig.builder()
                .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
                .set(ZooKeeperConfigKeys.DIR, dir.toString())
                .set(ZooKeeperConfigKeys.SERVERS, servers)
                .set(ZooKeeperConfigKeys.ID, 1)
                .build());
    assertThatThrownBy(zk::start)
        .isInstanceOf(IOException.class)
        .hasMessage(
            "ZooKeeper data dir " + dir + " holds ensemble member 2's data (myid), not member 1's");

    EmbeddedZooKeeper alone = new EmbeddedZooKeeper(standalone("127.0.0.1:0", dir));
    assertThatThrownBy(alone::start)
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("ZooKeeper data dir " + dir + " holds ensemble member 2's data");

    // And a standalone server's data is no member's.
    Path standaloneData = tmp.resolve("standalone");
    try (EmbeddedZooKeeper alone2 =
        new EmbeddedZooKeeper(standalone("127.0.0.1:0", standaloneData))) {
      alone2.start();
    }
    EmbeddedZooKeeper member =
        new EmbeddedZooKeeper(
            BraidConfig.builder()
                .set(ZooKeeperConfigKeys.ADDRESS, "127.0.0.1:0")
                .set(ZooKeeperConfigKeys.DIR, standaloneData.toString())
                .set(ZooKeeperConfigKeys.SERVERS, servers)
                .set(ZooKeeperConfigKeys.ID, 1)
                .build());
    assertThatThrownBy(member::start)
        .isInstanceOf(IOException.class)
        .hasMessage(
            "ZooKeeper data dir "
                + standaloneData
                + " holds a standalone server's data; an ensemble member starts on an empty one");
  }

  @Test
  void theConfigurationIsCheckedWhenTheServerIsMade() {
    assertThatThrownBy(() -> new EmbeddedZooKeeper(standalone("nope", tmp)))
        .hasMessageStartingWith("braid.zk.address: invalid address 'nope'");
    assertThatThrownBy(
            () ->
                new EmbeddedZooKeeper(BraidConfig.builder().set(ZooKeeperConfigKeys.ID, 2).build()))
        .hasMessage(
            "braid.zk.id is 2 but braid.zk.servers is empty: a standalone server has no id");
    List<String> three = List.of("1=a:1:2", "server.2=b:1:2", "3=[::1]:1:2");
    assertThatThrownBy(
            () ->
                new EmbeddedZooKeeper(
                    BraidConfig.builder().set(ZooKeeperConfigKeys.SERVERS, three).build()))
        .hasMessageStartingWith("braid.zk.id is not set: name this member's N");
    assertThatThrownBy(
            () ->
                new EmbeddedZooKeeper(
                    BraidConfig.builder()
                        .set(ZooKeeperConfigKeys.SERVERS, three)
                        .set(ZooKeeperConfigKeys.ID, 4)
                        .build()))
        .hasMessage(
            "braid.zk.id is 4, which is not a member of braid.zk.servers [1=a:1:2, 2=b:1:2, 3=[::1]:1:2]");
    assertThatThrownBy(
            () ->
                new EmbeddedZooKeeper(
                    BraidConfig.builder()
                        .set(ZooKeeperConfigKeys.SERVERS, List.of("1=a:1:2"))
                        .set(ZooKeeperConfigKeys.ID, 1)
                        .build()))
        .hasMessageStartingWith("braid.zk.servers lists one member");
  }

  @Test
  void ensembleMembersParseAsZooCfgWritesThem() {
    assertThat(EnsembleMember.parse("server.3=zk3.example:2888:3888"))
        .isEqualTo(new EnsembleMember(3, "zk3.example", 2888, 3888));
    assertThat(EnsembleMember.parse(" 1=[::1]:2888:3888 ").host()).isEqualTo("::1");
    for (String bad :
        List.of(
            "1=h:2888",
            "x=h:1:2",
            "1=:1:2",
            "0=h:1:2",
            "256=h:1:2",
            "1=h:0:2",
            "1=h:5:5",
            "1=h:1:99999",
            "h:1:2")) {
      assertThatThrownBy(() -> EnsembleMember.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("invalid ensemble member '" + bad + "'");
    }
    assertThatThrownBy(() -> EnsembleMember.parseAll(List.of("1=a:1:2", "1=b:1:2")))
        .hasMessage("member id 1 is listed twice");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
