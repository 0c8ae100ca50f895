package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark job whose process holds Braid delegation tokens and nothing else (issue 28), as YARN or
 * Kubernetes start a secure job's driver and executors: a KDC (Apache Kerby's, a process of its
 * own), {@code ./braid local} with Kerberos on every server, the submitter (this JVM) logs in as
 * alice from her keytab and collects the tokens with Hadoop's {@code addDelegationTokens} into a
 * token file, and {@link SparkTokenJob} runs in a new JVM with {@code HADOOP_TOKEN_FILE_LOCATION}
 * and no ticket: without the file it is refused; with it, Spark {@code local[2]} reads alice's
 * input, writes Parquet as alice and reads it back.
 *
 * <p>It runs in failsafe's {@code spark-it} execution with {@link SparkJobIT} (Spark's own
 * classpath); the KDC's classpath, which that one lacks, comes from the build ({@code
 * braid.it.kdc.classpath}).
 *
 * <p>Thread-safety: JUnit runs it on one thread.
 */
@Timeout(600) // three jobs of up to 150 s each, and the cluster's start
class SparkTokenJobIT {
  private static final String REALM = "BRAID.TEST";
  private static final int LINES = 10_000;
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);

  @TempDir static Path tmp;

  private static @Nullable Process kdc;
  private static @Nullable LocalBraid braid;

  @BeforeAll
  static void startKdcAndBraid() throws Exception {
    if (!SparkJobIT.inSparkExecution()) {
      return; // each test is skipped, see onlyInTheSparkExecution
    }
    int port = LocalBraid.freePort();
    Path log = tmp.resolve("kdc.log");
    kdc =
        new ProcessBuilder(
                java(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-cp",
                Objects.requireNonNull(
                    System.getProperty("braid.it.kdc.classpath"), "braid.it.kdc.classpath"),
                "io.braidfs.testing.process.KdcMain",
                kdcDir().toString(),
                "localhost",
                "" + port,
                "keytab:braid/localhost",
                "keytab:root",
                "keytab:alice")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.readString(log).contains("braid kdc: serving")) {
      if (!kdc.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("the KDC did not start:\n" + Files.readString(log));
      }
      // fs-testing's Await is not on the Spark classpath this test runs on (dist's pom.xml).
      Thread.sleep(100);
    }
    braid =
        LocalBraid.start(
            tmp,
            List.of(
                "-D",
                "braid.security.authentication=KERBEROS",
                "-D",
                "braid.security.kerberos.krb5-conf=" + krb5Conf(),
                "-D",
                "braid.security.kerberos.principal=braid/localhost@" + REALM,
                "-D",
                "braid.security.kerberos.keytab=" + kdcDir().resolve("braid_localhost.keytab"),
                "-D",
                "braid.security.kerberos.server-principal=braid/localhost"));
  }

  @BeforeEach
  void onlyInTheSparkExecution() {
    assumeThat(SparkJobIT.inSparkExecution())
        .as("SparkTokenJobIT runs only in failsafe's spark-it execution, on Spark's own classpath")
        .isTrue();
  }

  @AfterAll
  static void stop() {
    try {
      if (braid != null) {
        braid.close();
      }
    } finally {
      if (kdc != null) {
        kdc.destroyForcibly();
      }
    }
  }

  @Test
  void aSparkJobRunsWithDelegationTokensAlone() throws Exception {
    LocalBraid b = Objects.requireNonNull(braid);
    as(
        "root",
        fs -> {
          fs.mkdirs(new org.apache.hadoop.fs.Path("/user/alice"));
          fs.setOwner(new org.apache.hadoop.fs.Path("/user/alice"), "alice", null);
          return null;
        });
    Path tokenFile = tmp.resolve("alice.tokens");
    as(
        "alice",
        fs -> {
          try (FSDataOutputStream out =
              fs.create(new org.apache.hadoop.fs.Path("/user/alice/numbers.txt"))) {
            for (int i = 1; i <= LINES; i++) {
              out.write((i + "\n").getBytes(StandardCharsets.UTF_8));
            }
          }
          // What spark-submit does for a secure cluster's file systems before it starts the job.
          Credentials creds = new Credentials();
          assertThat(fs.addDelegationTokens("alice", creds)).hasSize(1);
          creds.writeTokenStorageFile(
              new org.apache.hadoop.fs.Path(tokenFile.toUri()), fs.getConf());
          return null;
        });

    // No token file: no ticket either, so the job's process gets nothing.
    Result refused = job(null, "stat", "/user/alice/numbers.txt");
    assertThat(refused.exit()).as(refused.output()).isNotZero();
    assertThat(refused.output())
        .doesNotContain("ok owner=")
        .contains("NOT_AUTHENTICATED")
        .contains("log-in from the ticket cache");

    Result stat = job(tokenFile, "stat", "/user/alice/numbers.txt");
    assertThat(stat.exit()).as(stat.output()).isZero();
    assertThat(stat.output()).contains("ok owner=alice");

    Result run = job(tokenFile, "job", "/user/alice/numbers.txt", "/user/alice/out");
    assertThat(run.exit()).as(run.output()).isZero();
    long sum = (long) LINES * (LINES + 1) / 2;
    assertThat(run.output().lines())
        .contains("ok lines=" + LINES + " sum=" + sum + " written=" + LINES);

    // The job's files are alice's: the token acted as its owner.
    FileStatus[] out =
        as("alice", fs -> fs.listStatus(new org.apache.hadoop.fs.Path("/user/alice/out")));
    assertThat(out).extracting(s -> s.getPath().getName()).contains("_SUCCESS");
    assertThat(out)
        .hasSizeGreaterThan(1)
        .allSatisfy(s -> assertThat(s.getOwner()).isEqualTo("alice"));
    System.out.printf(
        "SparkTokenJobIT: Braid at %s; without tokens: %s%nthe job said: %s%n",
        b.uri(), refused.output(), run.output());
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private record Result(int exit, String output) {}

  /** Runs {@link SparkTokenJob} in a new JVM, with {@code tokens} as its token file if not null. */
  private static Result job(@Nullable Path tokens, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(java()));
    for (String option :
        Objects.requireNonNull(
                System.getProperty("braid.it.spark.jvm.args"), "braid.it.spark.jvm.args")
            .split(" +")) {
      if (!option.isEmpty()) {
        command.add(option);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.add(SparkTokenJob.class.getName());
    command.add(Objects.requireNonNull(braid).uri().toString());
    command.add(krb5Conf().toString());
    command.addAll(List.of(args));
    Path log = Files.createTempFile(tmp, "job-", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    Map<String, String> env = pb.environment();
    env.remove("KRB5CCNAME");
    env.remove("HADOOP_TOKEN_FILE_LOCATION");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    if (tokens != null) {
      env.put("HADOOP_TOKEN_FILE_LOCATION", tokens.toString());
    }
    Process p = pb.start();
    try {
      p.getOutputStream().close();
      if (!p.waitFor(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(
            "SparkTokenJob "
                + List.of(args)
                + " did not end in "
                + JOB_TIMEOUT
                + ":\n"
                + tail(log));
      }
      return new Result(p.exitValue(), tail(log));
    } finally {
      p.destroyForcibly(); // gone already, unless it timed out or the test was interrupted
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  /** {@code action} on a new braid:// file system, as {@code user} logged in from its keytab. */
  private static <T> T as(String user, FsAction<T> action) throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.braid.security.authentication", "KERBEROS");
    conf.set("fs.braid.security.kerberos.krb5-conf", krb5Conf().toString());
    conf.set("fs.braid.security.kerberos.server-principal", "braid/localhost");
    conf.set("fs.braid.security.kerberos.principal", user + "@" + REALM);
    conf.set("fs.braid.security.kerberos.keytab", kdcDir().resolve(user + ".keytab").toString());
    PrivilegedExceptionAction<T> run =
        () -> {
          try (FileSystem fs = FileSystem.newInstance(Objects.requireNonNull(braid).uri(), conf)) {
            return action.apply(fs);
          }
        };
    return UserGroupInformation.createRemoteUser(user).doAs(run);
  }

  private interface FsAction<T> {
    T apply(FileSystem fs) throws Exception;
  }

  private static Path kdcDir() {
    return tmp.resolve("kdc");
  }

  private static Path krb5Conf() {
    return kdcDir().resolve("krb5.conf");
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
