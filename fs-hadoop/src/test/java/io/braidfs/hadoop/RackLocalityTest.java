package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.LayoutPolicy;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.CombineFileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.CombineFileSplit;
import org.apache.hadoop.mapreduce.lib.input.CombineTextInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Block locations on a cluster whose data servers report racks, as MapReduce reads them: hosts,
 * names and topology paths list every replica once, in the same order, as HDFS's do. All three data
 * servers run on 127.0.0.1 (as a MiniDFSCluster's DataNodes do), so a host appears once per replica
 * it serves.
 */
class RackLocalityTest {
  private static final String[] RACKS = {"/r1", "/r2", "/r2"};

  private static MiniCluster cluster;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    cluster =
        MiniCluster.builder(Files.createTempDirectory("braid-racks"))
            .dataServers(3)
            .dataServerConfig(i -> Map.of(DataServerConfigKeys.RACK.name(), RACKS[i]))
            .build();
    cluster.start();
    InetSocketAddress a = cluster.mdsAddress();
    fs =
        FileSystem.newInstance(
            URI.create("braid://" + a.getHostString() + ":" + a.getPort() + "/"),
            new Configuration());
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Files of three 128 KiB blocks each (64 KiB units, width 1, two replicas). */
  private static Path smallBlockFiles(String name, int files) throws IOException {
    Path dir = new Path("/" + name);
    fs.mkdirs(dir);
    ((BraidFileSystem) fs)
        .client()
        .setLayoutPolicy(
            dir.toUri().getPath(),
            LayoutPolicy.inherit()
                .withStripeUnit(64 << 10)
                .withStripeWidth(1)
                .withChunkSize(128 << 10)
                .withReplication(2));
    Random random = new Random(6);
    for (int i = 0; i < files; i++) {
      byte[] data = new byte[300 << 10];
      random.nextBytes(data);
      try (FSDataOutputStream out = fs.create(new Path(dir, "part-" + i))) {
        out.write(data);
      }
    }
    return dir;
  }

  @Test
  void hostsNamesAndTopologyPathsListEveryReplicaInTheSameOrder() throws IOException {
    Map<String, String> rackOf = new HashMap<>();
    for (int i = 0; i < RACKS.length; i++) {
      rackOf.put("127.0.0.1:" + cluster.dataServer(i).address().getPort(), RACKS[i]);
    }
    Path dir = smallBlockFiles("order", 1);
    FileStatus st = fs.getFileStatus(new Path(dir, "part-0"));
    BlockLocation[] blocks = fs.getFileBlockLocations(st, 0, st.getLen());
    assertThat(blocks).hasSize(3);
    for (BlockLocation b : blocks) {
      String[] names = b.getNames();
      assertThat(names).hasSize(2).doesNotHaveDuplicates();
      assertThat(b.getHosts()).hasSameSizeAs(names);
      assertThat(b.getTopologyPaths()).hasSameSizeAs(names);
      for (int i = 0; i < names.length; i++) {
        assertThat(b.getHosts()[i]).isEqualTo(names[i].substring(0, names[i].lastIndexOf(':')));
        assertThat(b.getTopologyPaths()[i]).isEqualTo(rackOf.get(names[i]) + "/" + names[i]);
      }
    }
  }

  @Test
  void combineTextInputFormatSplitsFilesByRack() throws IOException, InterruptedException {
    Path dir = smallBlockFiles("combine", 4);
    Job job = Job.getInstance(fs.getConf());
    job.getConfiguration().set(FileSystem.FS_DEFAULT_NAME_KEY, fs.getUri().toString());
    FileInputFormat.setInputPaths(job, fs.makeQualified(dir));
    job.getConfiguration().setLong(CombineFileInputFormat.SPLIT_MAXSIZE, 256 << 10);

    List<InputSplit> splits = new CombineTextInputFormat().getSplits(job);

    assertThat(splits).isNotEmpty();
    long total = 0;
    int blocks = 0;
    for (InputSplit split : splits) {
      CombineFileSplit c = (CombineFileSplit) split;
      total += c.getLength();
      blocks += c.getNumPaths();
      assertThat(c.getLocations()).isNotEmpty().containsOnly("127.0.0.1");
    }
    assertThat(total).isEqualTo(4L * (300 << 10));
    assertThat(blocks).isEqualTo(4 * 3); // every block in exactly one split
  }
}
