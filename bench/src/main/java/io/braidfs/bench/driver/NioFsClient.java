package io.braidfs.bench.driver;

import io.braidfs.bench.Throughputs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * {@link FsClient} through java.nio on a directory: the local disk, a FUSE mount, bindfs. Each call
 * is the system call it names (open with O_CREAT|O_EXCL, open, stat, unlink, mkdir, rename) and
 * nothing is synced, as an application's plain create and close are not.
 *
 * <p>Thread-safety: thread-safe (stateless over the file system).
 */
final class NioFsClient implements FsClient {
  private final String name;
  private final Path root;

  NioFsClient(String name, Path root) {
    this.name = name;
    this.root = root;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    Files.createDirectories(root.resolve(dir));
  }

  @Override
  public void create(String file, byte[] data) throws IOException {
    try (SeekableByteChannel c =
        Files.newByteChannel(
            root.resolve(file), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(data);
      while (b.hasRemaining()) {
        c.write(b);
      }
    }
  }

  @Override
  public void open(String file) throws IOException {
    Files.newByteChannel(root.resolve(file), StandardOpenOption.READ).close();
  }

  @Override
  public void stat(String file) throws IOException {
    Files.readAttributes(root.resolve(file), BasicFileAttributes.class);
  }

  @Override
  public void delete(String file) throws IOException {
    Files.delete(root.resolve(file));
  }

  @Override
  public void mkdir(String dir) throws IOException {
    Files.createDirectory(root.resolve(dir));
  }

  @Override
  public void rename(String from, String to) throws IOException {
    // ATOMIC_MOVE: one rename(2), never a copy.
    Files.move(root.resolve(from), root.resolve(to), StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void deleteTree(String dir) throws IOException {
    Throughputs.deleteTree(root.resolve(dir));
  }
}
