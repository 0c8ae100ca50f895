package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.security.DelegationTokenIdentifier;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Text;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MDS's identifier bytes (fs-common, no Hadoop) are Hadoop's AbstractDelegationTokenIdentifier
 * Writable form, both ways, across the vint sizes.
 */
class BraidTokenIdentifierTest {
  @ParameterizedTest
  @ValueSource(longs = {0, 1, 127, 128, -112, -113, 255, 65_536, 1L << 40, Long.MAX_VALUE})
  void bytesAreHadoopsBothWays(long n) throws IOException {
    int small = (int) Math.min(Integer.MAX_VALUE, Math.abs(n % Integer.MAX_VALUE));
    DelegationTokenIdentifier ours =
        new DelegationTokenIdentifier(
            "älice", "yarn", n % 2 == 0 ? "" : "gateway", n, n, small, -small);
    BraidTokenIdentifier hadoops = new BraidTokenIdentifier();
    hadoops.readFields(new DataInputStream(new ByteArrayInputStream(ours.toBytes())));
    assertThat(hadoops.getOwner()).isEqualTo(new Text("älice"));
    assertThat(hadoops.getRenewer()).isEqualTo(new Text("yarn"));
    assertThat(hadoops.getRealUser()).isEqualTo(new Text(ours.realUser()));
    assertThat(hadoops.getIssueDate()).isEqualTo(n);
    assertThat(hadoops.getMaxDate()).isEqualTo(n);
    assertThat(hadoops.getSequenceNumber()).isEqualTo(small);
    assertThat(hadoops.getMasterKeyId()).isEqualTo(-small);

    ByteArrayOutputStream written = new ByteArrayOutputStream();
    hadoops.write(new DataOutputStream(written));
    assertThat(written.toByteArray()).isEqualTo(ours.toBytes());
    assertThat(DelegationTokenIdentifier.parse(written.toByteArray())).isEqualTo(ours);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 5, 20})
  void aTruncatedIdentifierIsRefused(int cut) {
    byte[] full =
        new DelegationTokenIdentifier("alice", "bob", "", 1L << 41, 1L << 42, 7, 3).toBytes();
    byte[] shorter = Arrays.copyOf(full, Math.min(cut, full.length - 1));
    assertThatThrownBy(() -> DelegationTokenIdentifier.parse(shorter))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
