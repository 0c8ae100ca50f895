package io.braidfs.bench.driver;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@link FsClient} through Hadoop's {@link FileSystem}: the same code drives HDFS and Braid's
 * {@code BraidFileSystem}, so the two differ only in the file system behind the API.
 *
 * <p>Thread-safety: as thread-safe as the FileSystem (both are, for these calls).
 */
final class HadoopFsClient implements FsClient {
  private final String name;
  private final FileSystem fs;
  private final String root;

  HadoopFsClient(String name, FileSystem fs, String root) {
    this.name = name;
    this.fs = fs;
    this.root = root;
  }

  private Path path(String relative) {
    return new Path(relative.isEmpty() ? root : root + "/" + relative);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    fs.mkdirs(path(dir));
  }

  @Override
  public void create(String file, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(path(file), false)) {
      out.write(data);
    }
  }

  @Override
  public void open(String file) throws IOException {
    fs.open(path(file)).close();
  }

  @Override
  public void stat(String file) throws IOException {
    fs.getFileStatus(path(file));
  }

  @Override
  public void delete(String file) throws IOException {
    if (!fs.delete(path(file), false)) {
      throw new IOException(name + ": delete " + path(file) + " deleted nothing");
    }
  }

  @Override
  public void mkdir(String dir) throws IOException {
    // Hadoop has no single-level mkdir; the parent exists, so this makes one directory.
    if (!fs.mkdirs(path(dir))) {
      throw new IOException(name + ": mkdirs " + path(dir) + " returned false");
    }
  }

  @Override
  public void rename(String from, String to) throws IOException {
    if (!fs.rename(path(from), path(to))) {
      throw new IOException(name + ": rename " + path(from) + " to " + path(to) + " failed");
    }
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    fs.delete(path(dir), true);
  }
}
