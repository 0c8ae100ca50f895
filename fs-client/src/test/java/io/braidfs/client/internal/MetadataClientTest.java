package io.braidfs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** How {@link MetadataClient} tells a refused connection from other failures to reach an MDS. */
class MetadataClientTest {
  private static IOException unavailable(String message, Throwable cause) {
    return StatusExceptions.toIOException(Status.UNAVAILABLE, message, cause);
  }

  @Test
  void aRefusalIsKnownByItsTypeInWhateverWordsTheSystemUses() {
    assertThat(
            MetadataClient.connectionRefused(
                unavailable(
                    "cannot connect to /127.0.0.1:7400: Connexion refusée",
                    new ConnectException("Connexion refusée"))))
        .isTrue();
  }

  @Test
  void aConnectTimeoutOrALostConnectionIsNoRefusal() {
    assertThat(
            MetadataClient.connectionRefused(
                unavailable(
                    "cannot connect to /10.0.0.1:7400: connection timed out",
                    new ConnectTimeoutException("connection timed out after 3000 ms"))))
        .isFalse();
    assertThat(
            MetadataClient.connectionRefused(
                unavailable(
                    "connection to /127.0.0.1:7400 failed: Connection refused",
                    new IOException("Connection reset by peer"))))
        .isFalse();
  }
}
