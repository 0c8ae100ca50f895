package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
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
    assertThat(RpcConfigKeys.TRANSPORT.defaultValue()).isEqualTo(Transport.Choice.AUTO);
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
  void optionsAreReadFromTheKeysAndZeroIoThreadsIsDerived() {
    int processors = Runtime.getRuntime().availableProcessors();
    RpcOptions defaults = RpcOptions.from(BraidConfig.defaults());
    RpcOptions explicit =
        RpcOptions.from(
            BraidConfig.fromMap(
                Map.of(
                    "braid.rpc.client.io-threads", "3",
                    "braid.rpc.server.io-threads", "5",
                    "braid.rpc.frame.max-payload", "1MiB",
                    "braid.rpc.client.call-timeout", "250ms")));

    assertThat(defaults).isEqualTo(RpcOptions.defaults());
    assertThat(defaults.effectiveClientIoThreads()).isEqualTo(Math.min(processors, 4));
    assertThat(defaults.effectiveServerIoThreads()).isEqualTo(processors);
    assertThat(explicit.effectiveClientIoThreads()).isEqualTo(3);
    assertThat(explicit.effectiveServerIoThreads()).isEqualTo(5);
    assertThat(explicit.maxPayloadBytes()).isEqualTo(1 << 20);
    assertThat(explicit.callTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void transportIsCaseInsensitive() {
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.rpc.transport", "nio"));

    assertThat(config.get(RpcConfigKeys.TRANSPORT)).isEqualTo(Transport.Choice.NIO);
  }
}
