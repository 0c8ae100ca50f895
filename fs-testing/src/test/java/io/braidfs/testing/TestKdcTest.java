package io.braidfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The KDC's krb5.conf names the host it was started on, or the start fails saying why. */
class TestKdcTest {
  @TempDir Path dir;

  @Test
  void theKrb5ConfNamesTheKdcsHost() throws Exception {
    try (TestKdc kdc = TestKdc.start(dir)) {
      String conf = Files.readString(Path.of(kdc.krb5Conf()));
      assertThat(conf).containsPattern("kdc = localhost:\\d+");
    }
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (TestKdc kdc = TestKdc.start(dir.resolve("by-address"), "127.0.0.1", port)) {
      assertThat(Files.readString(Path.of(kdc.krb5Conf())))
          .contains("kdc = 127.0.0.1:" + port)
          .doesNotContain("kdc = localhost");
    }
  }

  @Test
  void aTemplateThatNamesTheKdcOtherwiseFailsLoudly() {
    String conf = "[realms]\n  BRAID.TEST = {\n    kdc = 127.0.0.1:88\n  }\n";
    assertThat(TestKdc.namingKdc(conf.replace("127.0.0.1", "localhost"), "kdc.example", 88))
        .contains("kdc = kdc.example:88");
    assertThatThrownBy(() -> TestKdc.namingKdc(conf, "kdc.example", 88))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "Kerby's krb5.conf lacks \"kdc = localhost:88\", which TestKdc replaces to name the KDC"
                + " kdc.example:88");
  }
}
