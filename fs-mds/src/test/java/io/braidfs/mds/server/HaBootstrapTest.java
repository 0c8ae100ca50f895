package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.ha.LedgerList;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.ReadDirRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ledger trimming and store bootstrap, with three MDS replicas in this JVM, a real ZooKeeper and
 * their embedded bookies: the leader starts a new ledger every 20 records and deletes ledgers more
 * than 30 records behind, so a replica whose store is wiped, or that was down while the journal
 * moved on, cannot catch up from the ledgers; it copies a peer's store, follows the journal from
 * there, and ends with a store identical to the leader's.
 */
class HaBootstrapTest {
  @TempDir Path dir;
  private HaTestBed bed;
  private CuratorFramework zkClient;
  private final MdsServer[] replicas = new MdsServer[3];

  @BeforeEach
  void startZooKeeper() throws Exception {
    bed = new HaTestBed(dir, 3);
    zkClient = CuratorFrameworkFactory.newClient(bed.zk.getConnectString(), new RetryOneTime(100));
    zkClient.start();
  }

  @AfterEach
  void stop() throws IOException {
    for (MdsServer m : replicas) {
      if (m != null) {
        m.close();
      }
    }
    zkClient.close();
    bed.close();
  }

  private Path storeDir(int i) {
    return dir.resolve("mds-" + i);
  }

  private MdsServer start(int i) throws IOException {
    Map<String, String> c = bed.replica(i);
    // Outside the store directory, so wiping the store leaves the bookie (and its ledgers) be.
    c.put("braid.mds.ha.bookie.dir", dir.resolve("bookie-" + i).toString());
    c.put("braid.mds.ha.ledger-records", "20");
    c.put("braid.mds.ha.retained-records", "30");
    MdsServer m = new MdsServer(BraidConfig.fromMap(c));
    replicas[i] = m;
    m.start();
    return m;
  }

  private MdsServer awaitLeader() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      for (MdsServer m : replicas) {
        if (m != null && m.role() == MdsServer.Role.LEADER) {
          return m;
        }
      }
      assertThat(System.nanoTime()).as("a leader within 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private int standby(MdsServer leader) {
    for (int i = 0; i < 3; i++) {
      if (replicas[i] != null && replicas[i] != leader) {
        return i;
      }
    }
    throw new AssertionError("no standby");
  }

  /**
   * Waits until standbys {@code a} and {@code b} hold the same records, at least up to {@code
   * target}. A standby reads the open ledger up to its last add confirmed, which names an entry
   * only once the next one is sent: callers write one more change after {@code target}.
   */
  private static void awaitSame(MdsServer a, MdsServer b, long target) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (a.role() != MdsServer.Role.STANDBY
        || b.role() != MdsServer.Role.STANDBY
        || a.journalIndex() != b.journalIndex()
        || a.journalIndex() < target) {
      assertThat(System.nanoTime())
          .as(
              "%s (%s, record %d) and %s (%s, record %d) follow the journal to record %d",
              a, a.role(), a.journalIndex(), b, b.role(), b.journalIndex(), target)
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private LedgerList ledgers() throws Exception {
    return LedgerList.decode(zkClient.getData().forPath("/test/ledgers"));
  }

  private static void mkdirs(RpcClient c, MdsServer leader, int from, int to) throws IOException {
    for (int i = from; i < to; i++) {
      c.callSync(
          leader.address(),
          RpcMethod.MKDIR,
          MkdirRequest.newBuilder().setPath("/d/" + i).setMode(0755).setParents(true).build());
    }
  }

  /** Every key and value of every column family, as hex lines. */
  private static List<String> contents(StoreView s) throws IOException {
    List<String> out = new ArrayList<>();
    HexFormat hex = HexFormat.of();
    for (ColumnFamily f : ColumnFamily.values()) {
      byte[] after = null;
      ScanPage page;
      do {
        page = s.scan(f, new byte[0], after, 1000);
        for (ScanPage.Entry e : page.entries()) {
          out.add(f + " " + hex.formatHex(e.key()) + " " + hex.formatHex(e.value()));
        }
        after = page.cursor();
      } while (page.hasMore());
    }
    return out;
  }

  @Test
  void aWipedAndALaggingReplicaCopyAPeersStoreThenFollowTheJournal() throws Exception {
    for (int i = 0; i < 3; i++) {
      start(i);
    }
    MdsServer leader = awaitLeader();
    try (RpcClient c = RpcClient.builder("test").user("root").build()) {
      c.start();
      mkdirs(c, leader, 0, 10);
      // A replica's disk is replaced: its store is gone (its bookie is kept, on another disk).
      int wiped = standby(leader);
      replicas[wiped].close();
      replicas[wiped] = null;
      deleteTree(storeDir(wiped));
      mkdirs(c, leader, 10, 110);
      LedgerList trimmed = ledgers();
      assertThat(trimmed.ledgers().size())
          .as("old ledgers deleted: %s", trimmed)
          .isLessThanOrEqualTo(3);
      assertThat(trimmed.firstIndex()).as("the journal's first record").isGreaterThan(60);

      MdsServer back = start(wiped);
      int other = 3 - wiped - indexOf(leader);
      // The copy came from a peer at some record; one more change, and both standbys hold every
      // record before it: their stores are then byte for byte the same.
      long target = leader.journalIndex();
      mkdirs(c, leader, 110, 111);
      awaitSame(back, replicas[other], target);
      assertThat(contents(back.cache())).isEqualTo(contents(replicas[other].cache()));
      assertThat(Files.exists(storeDir(wiped).resolve("bootstrap"))).isFalse();

      // Another replica is down while the journal moves past its store.
      int lagging = other;
      long had = replicas[lagging].journalIndex();
      replicas[lagging].close();
      replicas[lagging] = null;
      mkdirs(c, leader, 111, 210);
      assertThat(ledgers().firstIndex()).isGreaterThan(had + 1);
      MdsServer behind = start(lagging);
      target = leader.journalIndex();
      mkdirs(c, leader, 210, 211);
      awaitSame(behind, back, target);
      assertThat(contents(behind.cache())).isEqualTo(contents(back.cache()));

      // A copied store serves as well as any: the old leader goes, a successor has every change.
      int old = indexOf(leader);
      leader.close();
      replicas[old] = null;
      MdsServer next = awaitLeader();
      assertThat(
              c.callSync(
                      next.address(),
                      RpcMethod.READ_DIR,
                      ReadDirRequest.newBuilder().setPath("/d").build())
                  .getEntriesCount())
          .isEqualTo(211);
    }
  }

  private int indexOf(MdsServer m) {
    for (int i = 0; i < 3; i++) {
      if (replicas[i] == m) {
        return i;
      }
    }
    throw new AssertionError(m + " is not a replica");
  }

  private static void deleteTree(Path p) throws IOException {
    try (var s = Files.walk(p)) {
      for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
