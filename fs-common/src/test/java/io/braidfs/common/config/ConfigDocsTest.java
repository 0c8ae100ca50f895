package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.rpc.RpcConfigKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigDocsTest {
  @Test
  void startsWithTheGeneratedNoticeAndTheRegenerateCommand() {
    String doc = ConfigDocs.render(List.of());

    assertThat(doc.lines().findFirst().orElseThrow()).startsWith("This file is generated");
    assertThat(doc).contains("`" + ConfigDocs.REGENERATE_COMMAND + "`");
    assertThat(ConfigDocs.REGENERATE_COMMAND)
        .startsWith("mvn -pl dist -am test -Dtest=ConfigurationDocTest")
        .contains("-Dbraid.docs.regenerate=true");
    assertThat(doc).contains("# Braid configuration").endsWith("\n");
  }

  @Test
  void rendersOneSortedTablePerComponentSortedByComponent() {
    ConfigKeySet alpha =
        new ConfigKeySet() {
          @Override
          public String component() {
            return "alpha";
          }

          @Override
          public List<ConfigKey<?>> keys() {
            return List.of(
                ConfigKey.duration("braid.alpha.wait", Duration.ofMillis(250), "Wait."),
                ConfigKey.string("braid.alpha.name", "", "Name."));
          }
        };

    String doc = ConfigDocs.render(List.of(new TestKeys(), alpha));

    String alphaSection =
        String.join(
            "\n",
            "## alpha",
            "",
            "| Key | Type | Default | Description |",
            "| --- | --- | --- | --- |",
            "| `braid.alpha.name` | string | (empty) | Name. |",
            "| `braid.alpha.wait` | duration | `250ms` | Wait. |",
            "");
    String testSection =
        String.join(
            "\n",
            "## test",
            "",
            "| Key | Type | Default | Description |",
            "| --- | --- | --- | --- |",
            "| `braid.test.buffer.size` | data size, 1KiB to 1MiB | `64KiB` | Buffer size. |",
            "| `braid.test.count` | int, 1 to 10 | `3` | How many \\| at most 10. |",
            "| `braid.test.hosts` | list of strings | (empty) | Hosts. |",
            "| `braid.test.mode` | enum: FAST, SAFE | `SAFE` | Mode. |",
            "| `braid.test.timeout` | duration | `30s` | Timeout. |",
            "");
    assertThat(doc).endsWith("\n" + alphaSection + "\n" + testSection);
  }

  @Test
  void rendersTheRpcKeys() {
    String doc = ConfigDocs.render(List.of(new RpcConfigKeys()));

    assertThat(doc)
        .contains("## rpc")
        .contains(
            "| `braid.rpc.transport` | enum: AUTO, EPOLL, NIO | `AUTO` | Netty transport: AUTO uses"
                + " epoll when the native library loads, else NIO. |")
        .contains("| `braid.rpc.client.max-outstanding` | int, 1 to 65536 | `1024` |");
  }
}
