package io.braidfs.hadoop;

import io.braidfs.common.security.DelegationTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenIdentifier;

/**
 * Hadoop's view of a Braid delegation token's identifier: the MDS writes exactly this class's
 * Writable form ({@link DelegationTokenIdentifier}), so {@code Token.decodeIdentifier()}, {@code
 * hadoop dtutil print} and Spark's renewal planning read Braid tokens as they read HDFS's. Found by
 * kind through {@code META-INF/services/org.apache.hadoop.security.token.TokenIdentifier}.
 *
 * <p>Thread-safety: not thread-safe, as every Writable.
 */
public final class BraidTokenIdentifier extends AbstractDelegationTokenIdentifier {
  /** The token kind: {@value DelegationTokenIdentifier#KIND}. */
  public static final Text KIND = new Text(DelegationTokenIdentifier.KIND);

  /** For Hadoop's reflection; fields come from {@code readFields}. */
  public BraidTokenIdentifier() {}

  @Override
  public Text getKind() {
    return KIND;
  }
}
