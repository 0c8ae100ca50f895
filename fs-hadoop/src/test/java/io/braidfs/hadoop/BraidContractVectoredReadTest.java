package io.braidfs.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Hadoop's vectored read contract, with direct and heap buffers, against a real Braid cluster. */
@ParameterizedClass(name = "buffer-{0}")
@MethodSource("params")
class BraidContractVectoredReadTest extends AbstractContractVectoredReadTest {
  BraidContractVectoredReadTest(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new BraidContract(conf);
  }
}
