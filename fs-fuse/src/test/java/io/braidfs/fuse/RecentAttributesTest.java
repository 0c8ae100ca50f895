package io.braidfs.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.FileAttributes;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecentAttributesTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final RecentAttributes recent = new RecentAttributes(Duration.ofSeconds(1), now::get);

  private static FileAttributes attrs(long inode) {
    return FileAttributes.builder().inodeId(inode).mode(0644).build();
  }

  @Test
  void anEntryIsTakenOnceBySameUid() {
    recent.put("/a", 0, attrs(7));
    assertThat(recent.take("/a", 1000)).isNull(); // another user asks the MDS
    assertThat(recent.inodeOf("/a")).isEqualTo(7);
    assertThat(recent.take("/a", 0).inodeId()).isEqualTo(7);
    assertThat(recent.take("/a", 0)).isNull();
    assertThat(recent.inodeOf("/a")).isZero();
  }

  @Test
  void entriesExpireWithTheAttributeTimeout() {
    recent.put("/a", 0, attrs(7));
    now.addAndGet(Duration.ofMillis(999).toNanos());
    assertThat(recent.inodeOf("/a")).isEqualTo(7);
    now.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(recent.inodeOf("/a")).isZero();
    assertThat(recent.take("/a", 0)).isNull();
  }

  @Test
  void forgettingDropsEntries() {
    recent.put("/a", 0, attrs(1));
    recent.put("/b", 0, attrs(2));
    recent.forget("/a");
    assertThat(recent.take("/a", 0)).isNull();
    assertThat(recent.inodeOf("/b")).isEqualTo(2);
    recent.forgetAll();
    assertThat(recent.size()).isZero();
  }

  @Test
  void aZeroTimeoutKeepsNothing() {
    RecentAttributes none = new RecentAttributes(Duration.ZERO, now::get);
    none.put("/a", 0, attrs(1));
    assertThat(none.take("/a", 0)).isNull();
    assertThat(none.size()).isZero();
  }

  @Test
  void theTableStaysBounded() {
    for (int i = 0; i < 10_000; i++) {
      recent.put("/f" + i, 0, attrs(i + 1));
      if (i % 1000 == 0) {
        now.addAndGet(Duration.ofSeconds(2).toNanos()); // earlier entries expire
      }
    }
    assertThat(recent.size()).isLessThanOrEqualTo(4096);
    assertThat(recent.inodeOf("/f9999")).isEqualTo(10_000);
  }
}
