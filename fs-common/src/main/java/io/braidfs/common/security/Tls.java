package io.braidfs.common.security;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.ChannelTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS on Braid's connections ({@code braid.security.tls.*}): TLS 1.3 and 1.2 from PEM files,
 * OpenSSL (BoringSSL) where it loads, optionally mutual. The files are checked for changes at most
 * once per reload interval, when a connection is made, and rebuilt into new contexts if they
 * changed, so certificates are rotated without a restart; connections already open keep theirs.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Tls implements ChannelTls {
  private static final Logger LOG = LoggerFactory.getLogger(Tls.class);
  private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  private record Contexts(@Nullable SslContext server, SslContext client, long stamp) {}

  private final String id;
  private final boolean server;
  private final String certificate;
  private final String key;
  private final String trust;
  private final SecurityConfigKeys.ClientAuth clientAuth;
  private final boolean verifyHostname;
  private final SslProvider provider;
  private final long reloadNanos;
  private final LongSupplier nanoTime;
  private volatile Contexts contexts;
  private volatile long checkedNanos;

  private Tls(BraidConfig config, String id, boolean server, LongSupplier nanoTime)
      throws IOException {
    this.id = id;
    this.server = server;
    this.certificate = config.get(SecurityConfigKeys.TLS_CERTIFICATE);
    this.key = config.get(SecurityConfigKeys.TLS_KEY);
    this.trust = config.get(SecurityConfigKeys.TLS_TRUST);
    this.clientAuth = config.get(SecurityConfigKeys.TLS_CLIENT_AUTH);
    this.verifyHostname = config.get(SecurityConfigKeys.TLS_VERIFY_HOSTNAME);
    this.provider = provider(config.get(SecurityConfigKeys.TLS_PROVIDER), id);
    this.reloadNanos = config.get(SecurityConfigKeys.TLS_RELOAD_INTERVAL).toNanos();
    this.nanoTime = nanoTime;
    if (server && (certificate.isEmpty() || key.isEmpty())) {
      throw new IOException(
          id
              + ": braid.security.tls.enabled is true but braid.security.tls.certificate and"
              + " braid.security.tls.key are not both set: a server needs its certificate");
    }
    this.contexts = build();
    this.checkedNanos = nanoTime.getAsLong();
    LOG.info(
        "{}: TLS on ({}, client certificates {})",
        id,
        provider == SslProvider.OPENSSL ? "OpenSSL " + OpenSsl.versionString() : "JDK",
        clientAuth == SecurityConfigKeys.ClientAuth.REQUIRE ? "required" : "not asked for");
  }

  /**
   * TLS for a server (and the calls it makes to other servers), or null when TLS is off.
   *
   * @throws IOException naming the file that does not load
   */
  public static @Nullable Tls forServer(BraidConfig config, String id) throws IOException {
    return config.get(SecurityConfigKeys.TLS_ENABLED)
        ? new Tls(config, id, true, System::nanoTime)
        : null;
  }

  /**
   * TLS for a client, or null when TLS is off.
   *
   * @throws IOException naming the file that does not load
   */
  public static @Nullable Tls forClient(BraidConfig config, String id) throws IOException {
    return config.get(SecurityConfigKeys.TLS_ENABLED)
        ? new Tls(config, id, false, System::nanoTime)
        : null;
  }

  private static SslProvider provider(SecurityConfigKeys.TlsProvider wanted, String id)
      throws IOException {
    switch (wanted) {
      case JDK:
        return SslProvider.JDK;
      case OPENSSL:
        if (!OpenSsl.isAvailable()) {
          throw new IOException(
              id
                  + ": braid.security.tls.provider is OPENSSL but it does not load: "
                  + OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
      default:
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }
  }

  private long stamp() {
    long s = 17;
    for (String f : List.of(certificate, key, trust)) {
      s = 31 * s + (f.isEmpty() ? 0 : new File(f).lastModified());
    }
    return s;
  }

  private Contexts build() throws IOException {
    long stamp = stamp();
    try {
      SslContext serverContext = null;
      if (server) {
        SslContextBuilder b =
            SslContextBuilder.forServer(new File(certificate), new File(key))
                .sslProvider(provider)
                .protocols(PROTOCOLS);
        if (!trust.isEmpty()) {
          b.trustManager(new File(trust));
        }
        b.clientAuth(
            clientAuth == SecurityConfigKeys.ClientAuth.REQUIRE
                ? ClientAuth.REQUIRE
                : ClientAuth.NONE);
        serverContext = b.build();
      }
      SslContextBuilder c =
          SslContextBuilder.forClient().sslProvider(provider).protocols(PROTOCOLS);
      if (!trust.isEmpty()) {
        c.trustManager(new File(trust));
      }
      if (!certificate.isEmpty() && !key.isEmpty()) {
        c.keyManager(new File(certificate), new File(key));
      }
      return new Contexts(serverContext, c.build(), stamp);
    } catch (SSLException | IllegalArgumentException e) {
      List<String> files = new ArrayList<>();
      for (String f : List.of(certificate, key, trust)) {
        if (!f.isEmpty()) {
          files.add(f);
        }
      }
      throw new IOException(id + ": cannot load the TLS files " + files + ": " + e.getMessage(), e);
    }
  }

  /** The current contexts, rebuilt first if a file changed since they were made. */
  private Contexts current() {
    long now = nanoTime.getAsLong();
    if (now - checkedNanos < reloadNanos) {
      return contexts;
    }
    synchronized (this) {
      if (now - checkedNanos < reloadNanos) {
        return contexts;
      }
      checkedNanos = now;
      if (stamp() != contexts.stamp()) {
        try {
          contexts = build();
          LOG.info("{}: TLS files changed; new connections use them", id);
        } catch (IOException e) {
          LOG.warn("{}: keeping the TLS files loaded before: {}", id, e.getMessage());
        }
      }
      return contexts;
    }
  }

  @Override
  public SslHandler serverHandler(ByteBufAllocator alloc) {
    SslContext s = current().server();
    if (s == null) {
      throw new IllegalStateException(id + ": TLS built for a client, not a server");
    }
    return s.newHandler(alloc);
  }

  @Override
  public SslHandler clientHandler(ByteBufAllocator alloc, String host, int port) {
    SslHandler h = current().client().newHandler(alloc, host, port);
    if (verifyHostname) {
      SSLEngine engine = h.engine();
      SSLParameters p = engine.getSSLParameters();
      p.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(p);
    }
    return h;
  }

  /** How long the reload check waits, for tests. */
  long reloadIntervalMillis() {
    return TimeUnit.NANOSECONDS.toMillis(reloadNanos);
  }
}
