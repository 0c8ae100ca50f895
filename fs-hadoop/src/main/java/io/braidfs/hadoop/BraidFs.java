package io.braidfs.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsAction;

/**
 * Braid for Hadoop's FileContext ({@code fs.AbstractFileSystem.braid.impl}): YARN job submission,
 * Spark Structured Streaming checkpoints and other FileContext users get {@link BraidFileSystem}'s
 * behaviour, including its atomic rename with options.
 *
 * <p>Thread-safety: as {@link BraidFileSystem}.
 */
public class BraidFs extends DelegateToFileSystem {
  /**
   * Called by FileContext through reflection.
   *
   * @throws IOException if the cluster cannot be reached
   * @throws URISyntaxException if {@code uri} is not a braid URI
   */
  public BraidFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new BraidFileSystem(), conf, BraidFileSystem.SCHEME, false);
  }

  /** The MDS's answer, as {@link BraidFileSystem#access}; Hadoop's default knows no superuser. */
  @Override
  public void access(Path path, FsAction mode) throws IOException {
    checkPath(path);
    fsImpl.access(path, mode);
  }

  @Override
  public int getUriDefaultPort() {
    return HadoopSettings.DEFAULT_PORT;
  }
}
