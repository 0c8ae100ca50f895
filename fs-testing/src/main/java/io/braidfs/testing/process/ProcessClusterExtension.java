package io.braidfs.testing.process;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a {@link ProcessCluster} for a test class (registered on a static field) or for each test
 * (on an instance field), and tears it down afterwards whatever the outcome: every process killed,
 * every namespace deleted. Tests get the cluster from {@link #cluster()} or as a parameter.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ProcessClusterExtension CLUSTER =
 *     new ProcessClusterExtension(b -> b.dataServers(3).clients("client"));
 * }</pre>
 *
 * <p>The tarball comes from the system property {@value BraidInstall#TARBALL_PROPERTY}; files go
 * under {@code braid.process-cluster.dir} (default {@code target/process-cluster}). The tests are
 * skipped, saying why, only where the machine cannot make network namespaces ({@link
 * HostNetwork#unavailableReason()}), and fail there instead with {@code
 * BRAID_PROCESS_CLUSTER_REQUIRED=1}; a missing tarball or a server that does not come up fails
 * them. When a test failed, the cluster's hosts, processes and log ends are printed to stderr
 * before the teardown.
 *
 * <p>Thread-safety: JUnit calls it on one thread per class; not for concurrent test methods.
 */
public final class ProcessClusterExtension
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {
  /**
   * Environment variable: {@code 1} turns a machine that cannot make namespaces from a skip into a
   * failure (CI sets it, so that the process cluster's tests never silently stop running).
   */
  public static final String REQUIRED_ENV = "BRAID_PROCESS_CLUSTER_REQUIRED";

  /** System property: the directory for unpacked tarballs and the runs' files. */
  public static final String DIR_PROPERTY = "braid.process-cluster.dir";

  private final UnaryOperator<ProcessCluster.Builder> configure;
  private @Nullable ProcessCluster cluster;
  private boolean perTest;

  /** A cluster configured by {@code configure} (applied to the default builder). */
  public ProcessClusterExtension(UnaryOperator<ProcessCluster.Builder> configure) {
    this.configure = configure;
  }

  /** The running cluster. */
  public ProcessCluster cluster() {
    ProcessCluster c = cluster;
    if (c == null) {
      throw new IllegalStateException("the process cluster runs only inside its tests");
    }
    return c;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    if (cluster == null) {
      perTest = true; // registered on an instance field: beforeAll was not called
      start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    report(context);
    if (perTest) {
      stop();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    report(context);
    stop();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ProcessCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster();
  }

  private void start() throws Exception {
    Optional<String> missing = HostNetwork.unavailableReason();
    if (missing.isPresent() && "1".equals(System.getenv(REQUIRED_ENV))) {
      throw new AssertionError(
          "process cluster: " + missing.get() + ", and " + REQUIRED_ENV + "=1");
    }
    Assumptions.assumeTrue(
        missing.isEmpty(), () -> "process cluster skipped: " + missing.orElse(""));
    Path dir = Path.of(System.getProperty(DIR_PROPERTY, "target/process-cluster"));
    BraidInstall install =
        BraidInstall.unpack(BraidInstall.tarballFromProperty(), dir.resolve("install"));
    ProcessCluster c = configure.apply(ProcessCluster.builder(install, dir)).build();
    cluster = c;
    try {
      c.start();
    } catch (Exception | AssertionError e) {
      cluster = null;
      try {
        c.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** After a failure, what the cluster looked like: hosts, processes, the ends of their logs. */
  private void report(ExtensionContext context) {
    ProcessCluster c = cluster;
    if (c != null && context.getExecutionException().isPresent()) {
      System.err.println(
          "process cluster at the failure of " + context.getDisplayName() + ":\n" + c.describe());
    }
  }

  private void stop() {
    ProcessCluster c = cluster;
    if (c != null) {
      cluster = null;
      c.close();
    }
  }
}
