package io.braidfs.bench.ref;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An OpenSSH server of its own on a loopback port, for sshfs (the WAN reference of
 * BENCHMARKING.md): a config file, a host key and one authorized client key generated into a
 * directory, started as {@code sshd -D -f config}. The system's sshd, if any, and its config are
 * left alone.
 *
 * <p>It logs in the user running the driver (root on the benchmark machines) with the generated key
 * only; SFTP is served in-process ({@code internal-sftp}), so no sftp-server path is assumed.
 *
 * <p>Thread-safety: thread-safe ({@link #close()} may be called from any thread, once or more).
 */
public final class Sshd implements AutoCloseable {
  private static final Path SSHD = Path.of("/usr/sbin/sshd");
  private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Process process;
  private final InetSocketAddress address;
  private final Path identityFile;
  private final Path log;

  private Sshd(Process process, InetSocketAddress address, Path identityFile, Path log) {
    this.process = process;
    this.address = address;
    this.identityFile = identityFile;
    this.log = log;
  }

  /**
   * Generates keys and a config into {@code dir} (created if missing) and starts sshd on a free
   * port of 127.0.0.1; returns once it accepts connections.
   *
   * @throws IOException if sshd or ssh-keygen is missing or sshd does not come up in 10 s (the
   *     message carries sshd's log)
   */
  public static Sshd start(Path dir) throws IOException, InterruptedException {
    if (!Files.isExecutable(SSHD)) {
      throw new IOException(SSHD + " is missing: install openssh-server (bench/bench-setup.sh)");
    }
    Files.createDirectories(dir);
    Path hostKey = dir.resolve("host_ed25519");
    Path clientKey = dir.resolve("client_ed25519");
    keygen(hostKey);
    keygen(clientKey);
    Path authorized = dir.resolve("authorized_keys");
    Files.copy(Path.of(clientKey + ".pub"), authorized);
    // sshd refuses to start without its privilege separation directory, which Debian's init
    // script creates; on a machine where the system sshd never ran it is missing.
    Files.createDirectories(Path.of("/run/sshd"));
    int port = freePort();
    Path config = dir.resolve("sshd_config");
    Files.write(
        config,
        List.of(
            "ListenAddress 127.0.0.1",
            "Port " + port,
            "HostKey " + hostKey,
            "PidFile " + dir.resolve("sshd.pid"),
            "AuthorizedKeysFile " + authorized,
            // The key files live in a temporary directory whose modes sshd would reject.
            "StrictModes no",
            "UsePAM no",
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "Subsystem sftp internal-sftp",
            // Many connections in a row (each sshfs mount, each probe below) must not be throttled.
            "MaxStartups 100",
            "LogLevel ERROR"),
        StandardCharsets.UTF_8);
    Path log = dir.resolve("sshd.log");
    Process p =
        new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    InetSocketAddress address =
        new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port);
    Sshd sshd = new Sshd(p, address, clientKey, log);
    try {
      sshd.awaitListening();
    } catch (IOException | InterruptedException | RuntimeException e) {
      sshd.close();
      throw e;
    }
    return sshd;
  }

  /** Where sshd listens: 127.0.0.1 and its port. */
  public InetSocketAddress address() {
    return address;
  }

  /** The private key that logs in; its public half is the only authorized key. */
  public Path identityFile() {
    return identityFile;
  }

  /** The user that logs in: the one running this JVM. */
  public String user() {
    return System.getProperty("user.name");
  }

  private void awaitListening() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
    while (true) {
      if (!process.isAlive()) {
        throw new IOException(
            "sshd exited with " + process.exitValue() + " at start: " + Files.readString(log));
      }
      try (Socket s = new Socket()) {
        s.connect(address, 200);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "sshd is not listening on " + address + " after 10 s: " + Files.readString(log), e);
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
    }
  }

  private static void keygen(Path key) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("ssh-keygen of " + key + " failed: " + out);
    }
  }

  /** A port that was free a moment ago; sshd binds it by number, so it cannot be given port 0. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  /** Stops sshd (SIGTERM, then SIGKILL after 5 s) and waits for it. Idempotent. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "sshd[" + address + "]";
  }
}
