package io.braidfs.bench.driver;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidOutputStream;
import java.io.IOException;

/**
 * {@link FsClient} through Braid's Java client, {@link BraidClient}.
 *
 * <p>Thread-safety: thread-safe, as BraidClient is.
 */
final class BraidFsClient implements FsClient {
  private final String name;
  private final BraidClient client;
  private final String root;

  BraidFsClient(String name, BraidClient client, String root) {
    this.name = name;
    this.client = client;
    this.root = root;
  }

  private String path(String relative) {
    return relative.isEmpty() ? root : root + "/" + relative;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    client.mkdirs(path(dir), 0755);
  }

  @Override
  public void create(String file, byte[] data) throws IOException {
    try (BraidOutputStream out = client.create(path(file))) {
      out.write(data);
    }
  }

  @Override
  public void open(String file) throws IOException {
    client.open(path(file)).close();
  }

  @Override
  public void stat(String file) throws IOException {
    client.stat(path(file));
  }

  @Override
  public void delete(String file) throws IOException {
    client.unlink(path(file));
  }

  @Override
  public void mkdir(String dir) throws IOException {
    client.mkdir(path(dir), 0755);
  }

  @Override
  public void rename(String from, String to) throws IOException {
    client.rename(path(from), path(to));
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    client.delete(path(dir), true);
  }
}
