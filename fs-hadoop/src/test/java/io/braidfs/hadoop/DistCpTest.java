package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.LayoutPolicy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.tools.DistCp;
import org.apache.hadoop.tools.OptionsParser;
import org.apache.hadoop.tools.mapred.CopyMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DistCp between two {@code braid://} directories, run in this JVM by MapReduce's local job runner
 * (its staging and listing files on the local disk), as {@code hadoop distcp} runs it.
 */
class DistCpTest {
  private static final URI URI_ = ContractCluster.uri("unit");
  private static final int FILES = 3;

  @TempDir Path tmp;
  private Configuration conf;
  private BraidFileSystem fs;

  @BeforeEach
  void open() throws IOException {
    conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("hadoop.tmp.dir", tmp.toString());
    fs = (BraidFileSystem) FileSystem.newInstance(URI_, conf);
  }

  @AfterEach
  void close() throws IOException {
    fs.close();
  }

  private Counters distcp(String... args) throws Exception {
    Job job = new DistCp(new Configuration(conf), OptionsParser.parse(args)).execute();
    assertThat(job.isSuccessful()).as("distcp %s", String.join(" ", args)).isTrue();
    return job.getCounters();
  }

  private static long count(Counters c, CopyMapper.Counter counter) {
    return c.findCounter(counter).getValue();
  }

  /**
   * {@code -update -pb} keeps block sizes and copies a file again when its block size differs, so a
   * second run copies nothing only if every copy reports exactly the block size of its source. The
   * two directories have different layouts (stripe width 2 and 3), so a block size the layout had
   * to round would come out differently on each side.
   */
  @Test
  void updateWithBlockSizesCopiesNothingTheSecondTime() throws Exception {
    org.apache.hadoop.fs.Path base =
        fs.makeQualified(new org.apache.hadoop.fs.Path("/distcp/update"));
    fs.delete(base, true);
    org.apache.hadoop.fs.Path src = new org.apache.hadoop.fs.Path(base, "src");
    org.apache.hadoop.fs.Path dst = new org.apache.hadoop.fs.Path(base, "dst");
    fs.mkdirs(src);
    fs.mkdirs(dst);
    fs.client().setLayoutPolicy(src.toUri().getPath(), LayoutPolicy.inherit().withStripeWidth(2));
    fs.client().setLayoutPolicy(dst.toUri().getPath(), LayoutPolicy.inherit().withStripeWidth(3));
    Random random = new Random(8);
    long bytes = 0;
    for (int i = 0; i < FILES; i++) {
      byte[] data = new byte[10_000 + i];
      random.nextBytes(data);
      bytes += data.length;
      try (FSDataOutputStream out =
          fs.create(
              new org.apache.hadoop.fs.Path(src, "f" + i),
              FsPermission.getFileDefault(),
              true,
              4096,
              (short) 1,
              3L << 20,
              null)) {
        out.write(data);
      }
    }

    Counters first = distcp("-update", "-pb", src.toString(), dst.toString());
    assertThat(count(first, CopyMapper.Counter.COPY)).isEqualTo(FILES);
    assertThat(count(first, CopyMapper.Counter.BYTESCOPIED)).isEqualTo(bytes);
    for (int i = 0; i < FILES; i++) {
      assertThat(fs.getFileStatus(new org.apache.hadoop.fs.Path(dst, "f" + i)).getBlockSize())
          .isEqualTo(3L << 20);
    }

    Counters second = distcp("-update", "-pb", src.toString(), dst.toString());
    assertThat(count(second, CopyMapper.Counter.COPY)).isZero();
    assertThat(count(second, CopyMapper.Counter.BYTESCOPIED)).isZero();
    assertThat(count(second, CopyMapper.Counter.SKIP)).isEqualTo(FILES);
  }
}
