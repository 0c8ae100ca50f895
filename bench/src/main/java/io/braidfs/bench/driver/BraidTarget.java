package io.braidfs.bench.driver;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.LayoutPolicy;
import java.io.IOException;

/**
 * Braid through {@link BraidClient}'s streams: files in one directory, each created with this
 * target's layout (so one cluster serves every stripe setting); {@code hsync} for a sync, and
 * durable at close (the client's default, {@code braid.client.close.sync=true}).
 *
 * <p>Thread-safety: thread-safe as {@link BraidClient} is; each file has its own stream.
 */
final class BraidTarget implements Target {
  static final String SYSTEM = "Braid";

  private final String system;
  private final BraidClient client;
  private final String dir;
  private final LayoutPolicy layout;

  /**
   * @param system the column its samples go to
   * @param dir an absolute directory in Braid, made if missing
   */
  BraidTarget(String system, BraidClient client, String dir, LayoutPolicy layout)
      throws IOException {
    this.system = system;
    this.client = client;
    this.dir = dir;
    this.layout = layout;
    client.mkdirs(dir, 0755);
  }

  /** A layout with replication 1 and 64 MiB chunks, as every data experiment uses. */
  static LayoutPolicy layout(int stripeUnit, int stripeWidth) {
    return LayoutPolicy.inherit()
        .withStripeUnit(stripeUnit)
        .withStripeWidth(stripeWidth)
        .withChunkSize(64L << 20)
        .withReplication(1);
  }

  @Override
  public String system() {
    return system;
  }

  @Override
  public Sink create(String file) throws IOException {
    BraidOutputStream out =
        client.create(dir + "/" + file, CreateOptions.defaults().withLayout(layout));
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
    BraidInputStream in = client.open(dir + "/" + file);
    return new Source() {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void close() {
        in.close();
      }
    };
  }

  @Override
  public void delete(String file) throws IOException {
    client.delete(dir + "/" + file, false);
  }
}
