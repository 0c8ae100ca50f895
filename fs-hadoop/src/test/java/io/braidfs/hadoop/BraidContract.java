package io.braidfs.hadoop;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Binds Hadoop's contract suites to a real Braid cluster: capabilities come from {@code
 * contract/braid.xml}, the file system from {@link ContractCluster}.
 */
final class BraidContract extends AbstractFSContract {
  static final String CONTRACT_XML = "contract/braid.xml";

  private final String cluster;
  private FileSystem fs;

  BraidContract(Configuration conf) {
    this(conf, "shared");
  }

  BraidContract(Configuration conf, String cluster) {
    super(conf);
    addConfResource(CONTRACT_XML);
    this.cluster = cluster;
  }

  @Override
  public void init() throws IOException {
    super.init();
    fs = FileSystem.get(ContractCluster.uri(cluster), getConf());
  }

  @Override
  public FileSystem getTestFileSystem() {
    return fs;
  }

  @Override
  public String getScheme() {
    return BraidFileSystem.SCHEME;
  }

  @Override
  public Path getTestPath() {
    return fs.makeQualified(new Path("/contract-test"));
  }
}
