package io.braidfs.bench.driver;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A Hadoop {@link FileSystem} (HDFS) through its streams: files in one directory, {@code hsync} for
 * a sync, and durable at close when the file system is (HDFS with {@code
 * dfs.datanode.synconclose=true}, as {@link io.braidfs.bench.ref.HdfsCluster} runs it).
 *
 * <p>Thread-safety: thread-safe as a {@link FileSystem} is; each file has its own stream.
 */
final class HadoopTarget implements Target {
  private final String system;
  private final FileSystem fs;
  private final Path dir;

  /** Files go to {@code dir}, made if missing. */
  HadoopTarget(String system, FileSystem fs, String dir) throws IOException {
    this.system = system;
    this.fs = fs;
    this.dir = new Path(dir);
    fs.mkdirs(this.dir);
  }

  @Override
  public String system() {
    return system;
  }

  @Override
  public Sink create(String file) throws IOException {
    FSDataOutputStream out = fs.create(new Path(dir, file), true);
    return new Sink() {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
      }

      @Override
      public void sync() throws IOException {
        out.hsync();
      }

      @Override
      public void close() throws IOException {
        out.close();
      }
    };
  }

  @Override
  public Source open(String file) throws IOException {
    FSDataInputStream in = fs.open(new Path(dir, file));
    return new Source() {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }

  @Override
  public void delete(String file) throws IOException {
    fs.delete(new Path(dir, file), false);
  }
}
