package io.braidfs.hadoop;

import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.DtFetcher;
import org.apache.hadoop.security.token.Token;
import org.jspecify.annotations.Nullable;

/**
 * {@code hadoop dtutil get braid://mds:7400 tokens}: fetches a Braid delegation token into a token
 * file, through {@link BraidFileSystem#addDelegationTokens}. Found through {@code
 * META-INF/services/org.apache.hadoop.security.token.DtFetcher}.
 *
 * <p>Thread-safety: stateless.
 */
public final class BraidDtFetcher implements DtFetcher {
  private static final Text SERVICE = new Text(BraidFileSystem.SCHEME);

  @Override
  public Text getServiceName() {
    return SERVICE;
  }

  /**
   * True: whether a cluster issues tokens is Braid's setting ({@code fs.braid.security.*}), not
   * Hadoop's {@code hadoop.security.authentication}, and this method is not given the
   * configuration; {@link #addDelegationTokens} returns null for a cluster without Kerberos.
   */
  @Override
  public boolean isTokenRequired() {
    return true;
  }

  @Override
  public @Nullable Token<?> addDelegationTokens(
      Configuration conf, Credentials creds, String renewer, String url) throws Exception {
    String uri = url.startsWith(BraidFileSystem.SCHEME + "://") ? url : "braid://" + url;
    Token<?>[] added = FileSystem.get(URI.create(uri), conf).addDelegationTokens(renewer, creds);
    return added == null || added.length == 0 ? null : added[0];
  }
}
