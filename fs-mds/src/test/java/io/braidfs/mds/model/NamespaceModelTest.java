package io.braidfs.mds.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.mds.model.NamespaceModel.ModelException;
import io.braidfs.mds.model.NamespaceModel.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The reference model must itself be right before the MDS is judged by it. */
class NamespaceModelTest {
  private final NamespaceModel m = new NamespaceModel();

  private static void assertStatus(Status status, Executable op) {
    assertThatThrownBy(op::execute)
        .isInstanceOf(ModelException.class)
        .satisfies(e -> assertThat(((ModelException) e).status()).isEqualTo(status));
  }

  @Test
  void createsAndListsInNameOrder() {
    m.mkdir("/d", 0755, false);
    m.create("/d/b", 0644, false, false);
    m.create("/d/a", 0644, false, false);
    m.symlink("a", "/d/c", false);
    assertThat(m.readDir("/d")).extracting(e -> e.getKey()).containsExactly("a", "b", "c");
    assertThat(m.dump())
        .containsExactly(
            "/d DIRECTORY 755 0 0",
            "/d/a FILE 644 0 1",
            "/d/b FILE 644 0 1",
            "/d/c SYMLINK 777 1 1 -> a");
  }

  @Test
  void resolutionErrorsComeFromTheFirstBadComponent() {
    m.create("/f", 0644, false, false);
    assertStatus(Status.NOT_FOUND, () -> m.create("/missing/x", 0644, false, false));
    assertStatus(Status.NOT_DIRECTORY, () -> m.create("/f/x", 0644, false, false));
    assertStatus(Status.NOT_DIRECTORY, () -> m.mkdir("/f/x/y", 0755, true));
    assertStatus(Status.ALREADY_EXISTS, () -> m.create("/f", 0644, false, false));
    assertStatus(Status.IS_DIRECTORY, () -> m.create("/", 0644, true, false));
  }

  @Test
  void mkdirsCreatesAncestorsAndToleratesAnExistingDirectory() {
    assertThat(m.mkdir("/a/b/c", 0700, true)).isTrue();
    assertThat(m.mkdir("/a/b", 0700, true)).isFalse();
    assertStatus(Status.ALREADY_EXISTS, () -> m.mkdir("/a/b", 0700, false));
    assertThat(m.getAttr("/a/b/c").mode()).isEqualTo(0700);
  }

  @Test
  void implicitAncestorsGetMode0300MoreFromMkdirAnd0755FromCreateAndSymlink() {
    assertThat(m.mkdir("/m/n/o", 0444, true)).isTrue();
    assertThat(m.getAttr("/m").mode()).isEqualTo(0744);
    assertThat(m.getAttr("/m/n").mode()).isEqualTo(0744);
    assertThat(m.getAttr("/m/n/o").mode()).isEqualTo(0444);
    m.mkdir("/s/t", 01750, true);
    assertThat(m.getAttr("/s").mode()).isEqualTo(01750);
    m.create("/c/d/f", 0600, false, true);
    assertThat(m.getAttr("/c").mode()).isEqualTo(0755);
    assertThat(m.getAttr("/c/d").mode()).isEqualTo(0755);
    assertThat(m.getAttr("/c/d/f").mode()).isEqualTo(0600);
    m.symlink("/c", "/y/z/l", true);
    assertThat(m.getAttr("/y").mode()).isEqualTo(0755);
    assertThat(m.getAttr("/y/z").mode()).isEqualTo(0755);
    m.mkdir("/m/n/p", 0700, true);
    assertThat(m.getAttr("/m/n").mode()).as("an existing ancestor keeps its mode").isEqualTo(0744);
  }

  @Test
  void directoriesCountTheirSubdirectoriesAsLinks() {
    m.mkdir("/d/e", 0755, true);
    m.mkdir("/d/g", 0755, false);
    m.create("/d/f", 0644, false, false);
    m.symlink("e", "/d/l", false);
    assertThat(m.linkCount(m.getAttr("/d"))).isEqualTo(4);
    assertThat(m.linkCount(m.getAttr("/d/e"))).isEqualTo(2);
    assertThat(m.linkCount(m.getAttr("/"))).isEqualTo(3);
    m.link("/d/f", "/f2");
    assertThat(m.linkCount(m.getAttr("/d/f"))).isEqualTo(2);
    assertThat(m.getAttr("/d/l").target()).isEqualTo("e");
  }

  @Test
  void symlinksAreFollowedInTheMiddleAndLoopsStop() {
    m.mkdir("/real", 0755, false);
    m.symlink("/real", "/via", false);
    m.create("/via/f", 0644, false, false);
    assertThat(m.lookup("/real/f", false).type()).isEqualTo(Type.FILE);
    assertThat(m.getAttr("/via").type()).isEqualTo(Type.SYMLINK);
    assertThat(m.lookup("/via", true).type()).isEqualTo(Type.DIRECTORY);
    m.symlink("/loop2", "/loop1", false);
    m.symlink("/loop1", "/loop2", false);
    assertStatus(Status.TOO_MANY_LINKS, () -> m.lookup("/loop1/x", false));
    m.symlink("../real", "/real/up", false);
    assertThat(m.lookup("/real/up/f", true).type()).isEqualTo(Type.FILE);
  }

  @Test
  void renameFollowsPosix() {
    m.mkdir("/a", 0755, false);
    m.mkdir("/a/sub", 0755, false);
    m.mkdir("/b", 0755, false);
    m.create("/b/f", 0644, false, false);
    m.create("/g", 0644, false, false);
    assertStatus(Status.INVALID_ARGUMENT, () -> m.rename("/a", "/a/sub/x", false, false));
    assertStatus(Status.NOT_DIRECTORY, () -> m.rename("/a", "/g", false, false));
    assertStatus(Status.IS_DIRECTORY, () -> m.rename("/g", "/a", false, false));
    assertStatus(Status.NOT_EMPTY, () -> m.rename("/b", "/a", false, false));
    assertStatus(Status.ALREADY_EXISTS, () -> m.rename("/g", "/b/f", true, false));
    assertThat(m.rename("/g", "/b/f", false, false).replaced()).isTrue();
    assertThat(m.dump()).contains("/b/f FILE 644 0 1").doesNotContain("/g FILE 644 0 1");
    m.rmdir("/a/sub");
    assertThat(m.rename("/b", "/a", false, false).replaced()).isTrue();
    assertThat(m.readDir("/a")).extracting(e -> e.getKey()).containsExactly("f");
  }

  @Test
  void exchangeSwapsAndNeedsBothEnds() {
    m.mkdir("/d", 0755, false);
    m.create("/f", 0600, false, false);
    assertStatus(Status.NOT_FOUND, () -> m.rename("/f", "/nothing", false, true));
    m.rename("/f", "/d", false, true);
    assertThat(m.getAttr("/d").type()).isEqualTo(Type.FILE);
    assertThat(m.getAttr("/f").type()).isEqualTo(Type.DIRECTORY);
  }

  @Test
  void hadoopRenameMovesIntoAnExistingDirectoryAndNeverReplacesAFile() {
    m.mkdir("/dir", 0755, false);
    m.create("/f", 0644, false, false);
    m.create("/other", 0644, false, false);
    assertThat(m.renameHadoop("/f", "/dir").finalPath()).isEqualTo("/dir/f");
    assertStatus(Status.ALREADY_EXISTS, () -> m.renameHadoop("/other", "/dir/f"));
  }

  @Test
  void hardLinksCountAndOutliveTheirFirstName() {
    m.create("/f", 0644, false, false);
    m.link("/f", "/g");
    assertThat(m.getAttr("/g").nlink()).isEqualTo(2);
    m.unlink("/f");
    assertThat(m.getAttr("/g").nlink()).isEqualTo(1);
    m.mkdir("/d", 0755, false);
    assertStatus(Status.PERMISSION_DENIED, () -> m.link("/d", "/d2"));
    assertThat(m.inodeCount()).isEqualTo(3);
  }

  @Test
  void deleteCountsWhatItRemovesAndRespectsRecursive() {
    m.mkdir("/t/u", 0755, true);
    m.create("/t/u/f", 0644, false, false);
    m.symlink("f", "/t/l", false);
    assertStatus(Status.NOT_EMPTY, () -> m.delete("/t", false));
    assertStatus(Status.NOT_EMPTY, () -> m.rmdir("/t"));
    assertThat(m.delete("/t", true)).isEqualTo(4);
    assertThat(m.inodeCount()).isEqualTo(1);
    assertStatus(Status.INVALID_ARGUMENT, () -> m.delete("/", true));
  }

  @Test
  void xattrsHonourCreateAndReplace() {
    m.create("/f", 0644, false, false);
    m.setXattr("/f", "user.a", new byte[] {1}, NamespaceModel.XattrMode.CREATE);
    assertStatus(
        Status.ALREADY_EXISTS,
        () -> m.setXattr("/f", "user.a", new byte[] {2}, NamespaceModel.XattrMode.CREATE));
    assertStatus(
        Status.NOT_FOUND,
        () -> m.setXattr("/f", "user.b", new byte[] {2}, NamespaceModel.XattrMode.REPLACE));
    assertThat(m.getXattr("/f", "user.a"))
        .hasValueSatisfying(v -> assertThat(v).containsExactly(1));
    assertThat(m.getXattr("/f", "user.zz")).isEmpty();
    m.removeXattr("/f", "user.a");
    assertStatus(Status.NOT_FOUND, () -> m.removeXattr("/f", "user.a"));
  }

  @Test
  void setAttrTruncatesFilesOnly() {
    m.create("/f", 0644, false, false);
    m.mkdir("/d", 0755, false);
    assertThat(m.setAttr("/f", 0600, 10L).size()).isEqualTo(10);
    assertStatus(Status.IS_DIRECTORY, () -> m.setAttr("/d", null, 0L));
    assertThat(m.getAttr("/f").mode()).isEqualTo(0600);
  }
}
