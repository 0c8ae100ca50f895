package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MDS's half of concat over RPC (no data servers: the copy's commit is made up): the final call
 * commits the target and removes the sources in one step, and refuses, changing nothing and keeping
 * the caller's lease, a copy that no longer matches the namespace.
 */
class ConcatRpcTest {
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

  private Attributes file(String path, long length) throws IOException {
    long inode =
        root.callSync(
                mds.address(),
                RpcMethod.CREATE,
                CreateRequest.newBuilder()
                    .setPath(path)
                    .setMode(0644)
                    .setCreateParents(true)
                    .build())
            .getAttributes()
            .getInodeId();
    return root.callSync(
            mds.address(),
            RpcMethod.COMMIT,
            CommitRequest.newBuilder().setInodeId(inode).setLength(length).build())
        .getAttributes();
  }

  private Attributes stat(String path) throws IOException {
    return root.callSync(
            mds.address(), RpcMethod.LOOKUP, LookupRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  private ConcatResponse check(String target, String... sources) throws IOException {
    return root.callSync(
        mds.address(),
        RpcMethod.CONCAT,
        ConcatRequest.newBuilder()
            .setTargetPath(target)
            .addAllSourcePaths(List.of(sources))
            .setCheckOnly(true)
            .build());
  }

  private long openForWrite(String path) throws IOException {
    return root.callSync(
            mds.address(),
            RpcMethod.OPEN,
            OpenRequest.newBuilder().setPath(path).setWrite(true).build())
        .getAttributes()
        .getInodeId();
  }

  private ConcatResponse concat(
      String target, List<String> sources, long inode, long length, List<Attributes> copied)
      throws IOException {
    return root.callSync(
        mds.address(),
        RpcMethod.CONCAT,
        ConcatRequest.newBuilder()
            .setTargetPath(target)
            .addAllSourcePaths(sources)
            .setCommit(CommitRequest.newBuilder().setInodeId(inode).setLength(length))
            .addAllCopiedSources(copied)
            .build());
  }

  private static void fails(Status expected, ThrowingCall call) {
    assertThatThrownBy(call::run)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(expected));
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws IOException;
  }

  @Test
  void theCommitAndTheRemovalsAreOneStep() throws IOException {
    Attributes t = file("/t", 100);
    file("/a/x", 7);
    file("/b/y", 0);
    ConcatResponse checked = check("/t", "/a/x", "/b/y");
    assertThat(checked.getAttributes().getInodeId()).isEqualTo(t.getInodeId());
    assertThat(checked.getSourcesList()).extracting(Attributes::getSize).containsExactly(7L, 0L);
    int queued = mds.server().namespace().deletions().size();

    long inode = openForWrite("/t");
    Attributes after =
        concat("/t", List.of("/a/x", "/b/y"), inode, 107, checked.getSourcesList()).getAttributes();

    assertThat(after.getSize()).isEqualTo(107);
    assertThat(after.getMtimeNs()).isGreaterThanOrEqualTo(t.getMtimeNs());
    assertThat(stat("/t")).isEqualTo(after);
    fails(Status.NOT_FOUND, () -> stat("/a/x"));
    fails(Status.NOT_FOUND, () -> stat("/b/y"));
    // Both sources had chunk set 0 placed at create: released into the deletion queue.
    assertThat(mds.server().namespace().deletions().size()).isEqualTo(queued + 2);
    // The lease is released: the target is closed and may be concatenated onto again.
    file("/c", 3);
    assertThat(check("/t", "/c").getAttributes().getSize()).isEqualTo(107);
  }

  @Test
  void aCopyThatNoLongerMatchesChangesNothingAndKeepsTheLease() throws IOException {
    file("/t", 100);
    file("/x", 7);
    file("/y", 5);
    List<Attributes> copied = check("/t", "/x", "/y").getSourcesList();
    long inode = openForWrite("/t");
    Attributes openTarget = stat("/t");
    Attributes x = stat("/x");
    // Someone cut /y after it was copied.
    root.callSync(
        mds.address(),
        RpcMethod.SET_ATTR,
        SetAttrRequest.newBuilder().setPath("/y").setSize(2).build());
    Attributes y = stat("/y");

    fails(Status.STALE_HANDLE, () -> concat("/t", List.of("/x", "/y"), inode, 112, copied));
    // The length must be the target's plus the sources' as they are.
    List<Attributes> now = List.of(x, y);
    fails(Status.INVALID_ARGUMENT, () -> concat("/t", List.of("/x", "/y"), inode, 112, now));
    fails(Status.INVALID_ARGUMENT, () -> concat("/t", List.of("/x", "/y"), inode, 109, List.of(x)));
    fails(Status.STALE_HANDLE, () -> concat("/t", List.of("/x", "/y"), inode + 1, 109, now));
    fails(
        Status.INVALID_ARGUMENT,
        () ->
            root.callSync(
                mds.address(),
                RpcMethod.CONCAT,
                ConcatRequest.newBuilder().setTargetPath("/t").addSourcePaths("/x").build()));
    // While the target is open, a check refuses it; the open writer's own concat is not a check.
    fails(Status.LEASE_CONFLICT, () -> check("/t", "/x"));

    assertThat(stat("/t")).isEqualTo(openTarget);
    assertThat(stat("/x")).isEqualTo(x);
    assertThat(stat("/y")).isEqualTo(y);
    assertThat(concat("/t", List.of("/x", "/y"), inode, 109, now).getAttributes().getSize())
        .isEqualTo(109);
  }

  @Test
  void aConcatWithoutTheTargetsLeaseIsRefused() throws IOException {
    Attributes t = file("/t", 10);
    file("/x", 1);
    List<Attributes> copied = check("/t", "/x").getSourcesList();
    fails(Status.LEASE_EXPIRED, () -> concat("/t", List.of("/x"), t.getInodeId(), 11, copied));
    // Another client's lease is not the caller's either.
    RpcClient other = mds.client("root");
    other.callSync(
        mds.address(),
        RpcMethod.OPEN,
        OpenRequest.newBuilder().setPath("/t").setWrite(true).build());
    fails(Status.LEASE_EXPIRED, () -> concat("/t", List.of("/x"), t.getInodeId(), 11, copied));
    assertThat(stat("/x").getSize()).isEqualTo(1);
    assertThat(
            root.callSync(
                    mds.address(),
                    RpcMethod.GET_ATTR,
                    GetAttrRequest.newBuilder().setPath("/t").build())
                .getAttributes()
                .getSize())
        .isEqualTo(10);
  }
}
