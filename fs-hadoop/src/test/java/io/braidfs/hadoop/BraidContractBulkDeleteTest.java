package io.braidfs.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractBulkDeleteTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's BulkDelete contract against a real Braid cluster, with Braid's page size. */
class BraidContractBulkDeleteTest extends AbstractContractBulkDeleteTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new BraidContract(conf);
  }

  @Override
  protected int getExpectedPageSize() {
    return BraidBulkDelete.PAGE_SIZE;
  }
}
