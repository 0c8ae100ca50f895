package io.braidfs.hadoop;

import io.braidfs.client.BraidClient;
import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenRenewer;

/**
 * Renews and cancels Braid delegation tokens for Hadoop ({@code Token.renew}, {@code Token.cancel}:
 * YARN's resource manager, Spark's token manager), talking to the MDS the token's service names
 * with this process's Kerberos credentials ({@code fs.braid.security.*}). Found by kind through
 * {@code META-INF/services/org.apache.hadoop.security.token.TokenRenewer}.
 *
 * <p>Thread-safety: stateless.
 */
public final class BraidTokenRenewer extends TokenRenewer {
  @Override
  public boolean handleKind(Text kind) {
    return BraidTokenIdentifier.KIND.equals(kind);
  }

  @Override
  public boolean isManaged(Token<?> token) {
    return true;
  }

  @Override
  public long renew(Token<?> token, Configuration conf) throws IOException {
    try (BraidClient client = client(token, conf)) {
      return client.renewDelegationToken(token.getIdentifier());
    } catch (IOException e) {
      throw HadoopErrors.translate(e, HadoopErrors.Op.PATH);
    }
  }

  @Override
  public void cancel(Token<?> token, Configuration conf) throws IOException {
    try (BraidClient client = client(token, conf)) {
      client.cancelDelegationToken(token.getIdentifier());
    } catch (IOException e) {
      throw HadoopErrors.translate(e, HadoopErrors.Op.PATH);
    }
  }

  /** A client with Kerberos credentials: tokens are renewed and cancelled by a ticket's holder. */
  private static BraidClient client(Token<?> token, Configuration conf) throws IOException {
    URI uri = serviceUri(token);
    BraidConfig config = HadoopSettings.toBraidConfig(uri, conf);
    return BraidClient.builder(config)
        .user(UserGroupInformation.getCurrentUser().getShortUserName())
        .name("hadoop token renewer " + uri)
        .build();
  }

  /** {@code braid://authority}, from the token's service {@code braid:authority}. */
  static URI serviceUri(Token<?> token) throws IOException {
    String service = token.getService().toString();
    if (!service.startsWith(BraidFileSystem.SCHEME + ":")) {
      throw new IOException(
          "braid: the token's service " + service + " does not name a Braid cluster (braid:...)");
    }
    return URI.create(
        BraidFileSystem.SCHEME + "://" + service.substring(BraidFileSystem.SCHEME.length() + 1));
  }
}
