package io.braidfs.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetEnclosingRoot;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's getEnclosingRoot contract against a real Braid cluster. */
class BraidContractGetEnclosingRootTest extends AbstractContractGetEnclosingRoot {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new BraidContract(conf);
  }
}
