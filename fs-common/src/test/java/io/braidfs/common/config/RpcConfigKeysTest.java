package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class RpcConfigKeysTest {
  @Test
  void everyConstantIsListedAndEveryListedKeyIsAConstant() throws IllegalAccessException {
    List<ConfigKey<?>> constants = new ArrayList<>();
    for (Field f : RpcConfigKeys.class.getDeclaredFields()) {
      int m = f.getModifiers();
      if (f.getType() == ConfigKey.class && Modifier.isStatic(m) && Modifier.isPublic(m)) {
        constants.add((ConfigKey<?>) f.get(null));
      }
    }
    assertThat(new RpcConfigKeys().keys()).containsExactlyInAnyOrderElementsOf(constants);
  }

  @Test
  void isRegisteredWithServiceLoader() {
    assertThat(ServiceLoader.load(ConfigKeySet.class).stream().map(ServiceLoader.Provider::type))
        .contains(RpcConfigKeys.class);
  }

  @Test
  void defaults() {
    assertThat(RpcConfigKeys.TRANSPORT.defaultValue()).isEqualTo(RpcConfigKeys.Transport.AUTO);
    assertThat(RpcConfigKeys.FRAME_MAX_MESSAGE.defaultValue()).isEqualTo(DataSize.ofMiB(4));
    assertThat(RpcConfigKeys.FRAME_MAX_PAYLOAD.defaultValue()).isEqualTo(DataSize.ofMiB(16));
    assertThat(RpcConfigKeys.CLIENT_CALL_TIMEOUT.defaultValue()).isEqualTo(Duration.ofSeconds(30));
    assertThat(RpcConfigKeys.CLIENT_CONNECT_TIMEOUT.defaultValue())
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(RpcConfigKeys.CLIENT_MAX_OUTSTANDING.defaultValue()).isEqualTo(1024);
    assertThat(RpcConfigKeys.CLIENT_IO_THREADS.defaultValue()).isZero();
    assertThat(RpcConfigKeys.SERVER_IO_THREADS.defaultValue()).isZero();
    assertThat(RpcConfigKeys.SERVER_MAX_INFLIGHT.defaultValue()).isEqualTo(256);
    assertThat(RpcConfigKeys.SERVER_SHUTDOWN_GRACE.defaultValue()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void zeroIoThreadsMeansDerivedFromProcessors() {
    int processors = Runtime.getRuntime().availableProcessors();
    BraidConfig defaults = BraidConfig.defaults();
    BraidConfig explicit =
        BraidConfig.fromMap(
            Map.of("braid.rpc.client.io-threads", "3", "braid.rpc.server.io-threads", "5"));

    assertThat(RpcConfigKeys.clientIoThreads(defaults)).isEqualTo(Math.min(processors, 4));
    assertThat(RpcConfigKeys.serverIoThreads(defaults)).isEqualTo(processors);
    assertThat(RpcConfigKeys.clientIoThreads(explicit)).isEqualTo(3);
    assertThat(RpcConfigKeys.serverIoThreads(explicit)).isEqualTo(5);
  }

  @Test
  void transportIsCaseInsensitive() {
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.rpc.transport", "nio"));

    assertThat(config.get(RpcConfigKeys.TRANSPORT)).isEqualTo(RpcConfigKeys.Transport.NIO);
  }
}
