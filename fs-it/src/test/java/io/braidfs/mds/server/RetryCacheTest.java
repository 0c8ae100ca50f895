package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.server.RawConnection.Answer;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DeleteResponse;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameResponse;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retry cache over raw frames: a mutation repeated with the same (client id, call id), on the
 * same connection or a new one, is answered with its first answer and applied once (mds.proto:
 * "Retries reuse the call id; the MDS's retry cache (client id, call id) makes every mutation apply
 * at most once"); the same call id from another client, or for another method, is not a retry.
 */
class RetryCacheTest {
  private static final byte[] CLIENT_A = clientId(0xA1);
  private static final byte[] CLIENT_B = clientId(0xB2);

  @TempDir Path dir;
  private MdsFixture mds;
  private RpcClient root;

  @BeforeEach
  void start() throws IOException {
    mds = MdsFixture.builder(dir).build().start();
    root = mds.superuser();
  }

  @AfterEach
  void stop() {
    mds.close();
  }

  private static byte[] clientId(int fill) {
    byte[] id = new byte[16];
    Arrays.fill(id, (byte) fill);
    return id;
  }

  private RawConnection connect(byte[] clientId) throws IOException {
    return new RawConnection(
        mds.address(), clientId, MdsFixture.SUPERUSER, List.of(MdsFixture.SUPERUSER));
  }

  private static CreateRequest create(String path, boolean overwrite) {
    return CreateRequest.newBuilder().setPath(path).setMode(0644).setOverwrite(overwrite).build();
  }

  private List<String> rootListing() throws IOException {
    return ServerTree.readDir(root, mds.address(), "/", 100, true).stream()
        .map(DirEntry::getName)
        .toList();
  }

  private Attributes getAttr(String path) throws IOException {
    return root.callSync(
            mds.address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  private static void assertSameAnswer(Answer retry, Answer first) throws IOException {
    assertThat(retry)
        .as("the retry's answer (%s) must be the first answer (%s)", retry.error(), first.error())
        .isEqualTo(first);
  }

  @Test
  void anExclusiveCreateRetriedOnTheSameConnectionGetsItsFirstAnswer() throws IOException {
    Answer first;
    try (RawConnection c = connect(CLIENT_A)) {
      first = c.call(RpcMethod.CREATE, 7, create("/f", false));
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
      assertSameAnswer(c.call(RpcMethod.CREATE, 7, create("/f", false)), first);
    }
    CreateResponse created = first.parse(RpcMethod.CREATE);
    long inode = created.getAttributes().getInodeId();
    // The token is appended to the kept answer as it leaves, the first time and on the retry.
    assertThat(created.getToken().size()).isGreaterThan(32);
    assertThat(created.getFirstChunkSet().getChunksCount()).isPositive();
    assertThat(getAttr("/f").getInodeId()).isEqualTo(inode);
    assertThat(rootListing()).containsExactly("f");
  }

  @Test
  void anOverwritingCreateRetriedOnANewConnectionIsAppliedOnce() throws IOException {
    Answer first;
    try (RawConnection c = connect(CLIENT_A)) {
      first = c.call(RpcMethod.CREATE, 8, create("/g", true));
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
    }
    try (RawConnection c = connect(CLIENT_A)) {
      assertSameAnswer(c.call(RpcMethod.CREATE, 8, create("/g", true)), first);
    }
    CreateResponse created = first.parse(RpcMethod.CREATE);
    assertThat(getAttr("/g").getInodeId())
        .as("a second overwrite would have replaced /g with a new inode")
        .isEqualTo(created.getAttributes().getInodeId());
    assertThat(rootListing()).containsExactly("g");
  }

  @Test
  void aMkdirRetriedOnANewConnectionIsNotAlreadyExists() throws IOException {
    MkdirRequest mkdir = MkdirRequest.newBuilder().setPath("/d").setMode(0755).build();
    Answer first;
    try (RawConnection c = connect(CLIENT_A)) {
      first = c.call(RpcMethod.MKDIR, 9, mkdir);
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
    }
    try (RawConnection c = connect(CLIENT_A)) {
      assertSameAnswer(c.call(RpcMethod.MKDIR, 9, mkdir), first);
    }
    assertThat(rootListing()).containsExactly("d");
    assertThat(getAttr("/d").getInodeId())
        .isEqualTo(first.parse(RpcMethod.MKDIR).getAttributes().getInodeId());
  }

  @Test
  void aRenameRetriedIsNotNotFound() throws IOException {
    root.callSync(
        mds.address(),
        RpcMethod.MKDIR,
        MkdirRequest.newBuilder().setPath("/a").setMode(0755).build());
    long inode = getAttr("/a").getInodeId();
    RenameRequest rename =
        RenameRequest.newBuilder()
            .setSourcePath("/a")
            .setDestinationPath("/b")
            .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
            .build();
    Answer first;
    try (RawConnection c = connect(CLIENT_A)) {
      first = c.call(RpcMethod.RENAME, 10, rename);
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
      assertSameAnswer(c.call(RpcMethod.RENAME, 10, rename), first);
    }
    try (RawConnection c = connect(CLIENT_A)) {
      assertSameAnswer(c.call(RpcMethod.RENAME, 10, rename), first);
    }
    RenameResponse renamed = first.parse(RpcMethod.RENAME);
    assertThat(renamed.getFinalPath()).isEqualTo("/b");
    assertThat(rootListing()).containsExactly("b");
    assertThat(getAttr("/b").getInodeId()).isEqualTo(inode);
  }

  @Test
  void aRecursiveDeleteRetriedReportsTheSameCount() throws IOException {
    root.callSync(
        mds.address(),
        RpcMethod.MKDIR,
        MkdirRequest.newBuilder().setPath("/t/u").setMode(0755).setParents(true).build());
    DeleteRequest delete = DeleteRequest.newBuilder().setPath("/t").setRecursive(true).build();
    try (RawConnection c = connect(CLIENT_A)) {
      Answer first = c.call(RpcMethod.DELETE, 11, delete);
      DeleteResponse deleted = first.parse(RpcMethod.DELETE);
      assertThat(deleted.getDeletedCount()).isEqualTo(2);
      assertSameAnswer(c.call(RpcMethod.DELETE, 11, delete), first);
    }
    assertThat(rootListing()).isEmpty();
  }

  @Test
  void aRetrySentWhileTheFirstIsStillInFlightIsAppliedOnce() throws IOException {
    try (RawConnection c = connect(CLIENT_A)) {
      c.send(RpcMethod.CREATE, 12, create("/h", false));
      c.send(RpcMethod.CREATE, 12, create("/h", false));
      Answer one = c.read();
      Answer two = c.read();
      assertThat(one.status()).as(one.error()).isEqualTo(Status.OK);
      assertSameAnswer(two, one);
      assertThat(getAttr("/h").getInodeId())
          .isEqualTo(one.parse(RpcMethod.CREATE).getAttributes().getInodeId());
    }
    assertThat(rootListing()).containsExactly("h");
  }

  /** The retry cache is journaled state (architecture section 4), so a restart keeps it. */
  @Test
  void aRetryAfterARestartGetsTheFirstAnswer() throws IOException {
    RenameRequest rename =
        RenameRequest.newBuilder().setSourcePath("/r").setDestinationPath("/s").build();
    root.callSync(
        mds.address(),
        RpcMethod.MKDIR,
        MkdirRequest.newBuilder().setPath("/r").setMode(0755).build());
    Answer first;
    try (RawConnection c = connect(CLIENT_A)) {
      first = c.call(RpcMethod.RENAME, 15, rename);
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
    }
    mds.restart();
    root = mds.superuser();
    try (RawConnection c = connect(CLIENT_A)) {
      assertSameAnswer(c.call(RpcMethod.RENAME, 15, rename), first);
    }
    assertThat(rootListing()).containsExactly("s");
  }

  /**
   * New calls skip the retry-cache lookup once the MDS knows they are above every cached call of
   * their client ({@code CallWatermarks}); older calls, retried in any order and across a restart,
   * must still get their first answers.
   */
  @Test
  void olderCallsRetriedAfterNewerOnesAndAfterARestartGetTheirFirstAnswers() throws IOException {
    Answer x;
    Answer y;
    try (RawConnection c = connect(CLIENT_A)) {
      x = c.call(RpcMethod.CREATE, 30, create("/x", false));
      y = c.call(RpcMethod.CREATE, 31, create("/y", false));
      assertThat(x.status()).as(x.error()).isEqualTo(Status.OK);
      assertThat(y.status()).as(y.error()).isEqualTo(Status.OK);
      assertSameAnswer(c.call(RpcMethod.CREATE, 30, create("/x", false)), x);
    }
    mds.restart();
    root = mds.superuser();
    try (RawConnection c = connect(CLIENT_A)) {
      // The lower call first: the MDS cannot yet tell that 31 is cached from 30's probe.
      assertSameAnswer(c.call(RpcMethod.CREATE, 30, create("/x", false)), x);
      assertSameAnswer(c.call(RpcMethod.CREATE, 31, create("/y", false)), y);
      Answer z = c.call(RpcMethod.CREATE, 32, create("/z", false));
      assertThat(z.status()).as(z.error()).isEqualTo(Status.OK);
      // Now below the client's newest call: looked up.
      assertSameAnswer(c.call(RpcMethod.CREATE, 31, create("/y", false)), y);
      assertSameAnswer(c.call(RpcMethod.CREATE, 32, create("/z", false)), z);
      Answer again = c.call(RpcMethod.CREATE, 33, create("/x", false));
      assertThat(again.status())
          .as("a new call for an existing name")
          .isEqualTo(Status.ALREADY_EXISTS);
    }
    assertThat(rootListing()).containsExactly("x", "y", "z");
  }

  @Test
  void theSameCallIdFromAnotherClientIsANewCall() throws IOException {
    try (RawConnection a = connect(CLIENT_A)) {
      Answer first = a.call(RpcMethod.CREATE, 13, create("/k", false));
      assertThat(first.status()).as(first.error()).isEqualTo(Status.OK);
    }
    try (RawConnection b = connect(CLIENT_B)) {
      Answer other = b.call(RpcMethod.CREATE, 13, create("/k", false));
      assertThat(other.status()).as(other.error()).isEqualTo(Status.ALREADY_EXISTS);
    }
  }

  /**
   * mds.proto does not say whether such a call runs as a new call or is refused; either is accepted
   * here, but it must not get the other method's answer, and what it reports must be what happened.
   */
  @Test
  void aCallIdReusedForAnotherMethodIsNotTakenForARetry() throws IOException {
    Answer mkdir;
    Answer create;
    try (RawConnection c = connect(CLIENT_A)) {
      mkdir =
          c.call(
              RpcMethod.MKDIR, 14, MkdirRequest.newBuilder().setPath("/m").setMode(0755).build());
      assertThat(mkdir.status()).as(mkdir.error()).isEqualTo(Status.OK);
      create = c.call(RpcMethod.CREATE, 14, create("/n", false));
    }
    assertThat(create.method()).isEqualTo(RpcMethod.CREATE.id());
    assertThat(create.message()).isNotEqualTo(mkdir.message());
    assertThat(getAttr("/m").getType()).isEqualTo(FileType.FILE_TYPE_DIRECTORY);
    if (create.status().isOk()) {
      Attributes n = create.parse(RpcMethod.CREATE).getAttributes();
      assertThat(n.getType()).isEqualTo(FileType.FILE_TYPE_REGULAR);
      assertThat(getAttr("/n").getInodeId()).isEqualTo(n.getInodeId());
      assertThat(rootListing()).containsExactly("m", "n");
    } else {
      assertThat(rootListing())
          .as("refused with %s (%s), so nothing may be created", create.status(), create.error())
          .containsExactly("m");
    }
  }
}
