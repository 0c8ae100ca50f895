package io.braidfs.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code braid --version}: Braid's version (from {@code version.properties}, filled in by the
 * build) and the Java runtime it runs on.
 *
 * <p>Thread-safety: stateless.
 */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {
      "braid " + version(),
      "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "unknown") + ")"
    };
  }

  /** Braid's version, such as {@code 0.1.0}; "unknown" when the resource is missing. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.getProperty("version", "unknown");
  }
}
