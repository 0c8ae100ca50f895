package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follows docs/operations.md's "Walkthrough: a secure cluster on one machine" as written: its shell
 * blocks, in order, in one bash, with the MIT KDC of Debian's krb5-kdc, from the checkout. Only the
 * ports (8888, 7400: free ones instead) and the home directory (a temporary one) differ. A block
 * marked {@code run} must succeed; {@code background until "TEXT"} starts and waits for TEXT in its
 * output; in {@code each fails} every line must fail and print the text its comment quotes.
 *
 * <p>Skipped, saying so, where the MIT Kerberos tools are missing; with {@code
 * BRAID_OUTSIDE_TOOLS_REQUIRED=1} (CI) it fails instead.
 */
@Timeout(600)
class SecureWalkthroughIT {
  private static final String HEADING = "### Walkthrough: a secure cluster on one machine";
  private static final Pattern BLOCK =
      Pattern.compile("<!-- walkthrough: ([^>]*?) -->\\s*```sh\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern UNTIL = Pattern.compile("background until \"([^\"]+)\"");
  private static final Pattern PORTS =
      Pattern.compile("(127\\.0\\.0\\.1:|--mds-port )(8888|7400)\\b");
  private static final Pattern EXPECTED = Pattern.compile("#.*\"([^\"]+)\"\\s*$");
  private static final List<String> TOOLS =
      List.of("krb5kdc", "kdb5_util", "kadmin.local", "kinit");

  @TempDir Path tmp;

  @Test
  void theSecureClusterWalkthroughRunsAsWritten() throws Exception {
    List<String> missing = new ArrayList<>();
    for (String tool : TOOLS) {
      if (which(tool) == null) {
        missing.add(tool);
      }
    }
    if (!"1".equals(System.getenv("BRAID_OUTSIDE_TOOLS_REQUIRED"))) {
      assumeThat(missing)
          .as(
              "the MIT Kerberos tools %s are missing (apt-get install krb5-kdc krb5-admin-server"
                  + " krb5-user)",
              missing)
          .isEmpty();
    }
    assertThat(missing).as("MIT Kerberos tools missing").isEmpty();

    Path root = LocalBraid.repositoryRoot();
    String doc = Files.readString(root.resolve("docs/operations.md"), StandardCharsets.UTF_8);
    int start = doc.indexOf(HEADING);
    assertThat(start).as("docs/operations.md has the walkthrough").isNotNegative();
    int end = doc.indexOf("\n### ", start + HEADING.length());
    String section = doc.substring(start, end < 0 ? doc.length() : end);
    String kdcPort = "" + LocalBraid.freePort();
    String mdsPort = "" + LocalBraid.freePort();

    Path home = Files.createDirectories(tmp.resolve("home"));
    StringBuilder script = new StringBuilder("set -euo pipefail\n");
    List<String> expectedRefusals = new ArrayList<>();
    int blocks = 0;
    Matcher m = BLOCK.matcher(section);
    while (m.find()) {
      blocks++;
      String kind = m.group(1);
      // Both ports in one pass, so a new port never has the other's digits replaced in turn.
      String body =
          PORTS
              .matcher(m.group(2))
              .replaceAll(p -> p.group(1) + (p.group(2).equals("8888") ? kdcPort : mdsPort));
      script.append("cd ").append(quote(root.toString())).append('\n');
      if (kind.equals("run")) {
        script.append(body);
      } else if (kind.equals("each fails")) {
        for (String line : body.split("\n")) {
          if (line.isBlank()) {
            continue;
          }
          Matcher e = EXPECTED.matcher(line);
          assertThat(e.find()).as("a refused line quotes what it prints: %s", line).isTrue();
          expectedRefusals.add(e.group(1));
          // Exit code 1 and exactly one line, which says what the comment quotes.
          String refusal = tmp.resolve("refusal-" + expectedRefusals.size()).toString();
          script
              .append("set +e; ( ")
              .append(line.substring(0, line.indexOf('#')).strip())
              .append(" ) > ")
              .append(quote(refusal))
              .append(" 2>&1; rc=$?; set -e\n")
              .append("cat ")
              .append(quote(refusal))
              .append("\n[ \"$rc\" -eq 1 ] && [ \"$(wc -l < ")
              .append(quote(refusal))
              .append(")\" -eq 1 ] && grep -qF ")
              .append(quote(e.group(1)))
              .append(' ')
              .append(quote(refusal))
              .append(" || { echo \"WALKTHROUGH: not refused as written (exit $rc): ")
              .append(line.replace("'", "").replace("\"", "").replace("$", "\\$"))
              .append("\"; exit 1; }\n");
        }
      } else {
        Matcher u = UNTIL.matcher(kind);
        assertThat(u.matches()).as("walkthrough block kind '%s'", kind).isTrue();
        String log = tmp.resolve("background-" + blocks + ".log").toString();
        script
            .append("( ")
            .append(body.strip())
            .append(" ) > ")
            .append(quote(log))
            .append(" 2>&1 &\n")
            .append("echo $! > ")
            .append(quote(tmp.resolve("background.pid").toString()))
            .append('\n')
            .append("for i in $(seq 900); do grep -qF ")
            .append(quote(u.group(1)))
            .append(' ')
            .append(quote(log))
            .append(" && break; sleep 0.1; done\n")
            .append("grep -qF ")
            .append(quote(u.group(1)))
            .append(' ')
            .append(quote(log))
            .append(" || { echo 'WALKTHROUGH: not ready:'; cat ")
            .append(quote(log))
            .append("; exit 1; }\n");
      }
    }
    assertThat(blocks).as("walkthrough blocks").isEqualTo(4);
    assertThat(expectedRefusals).hasSize(3);

    Path out = tmp.resolve("walkthrough.out");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", script.toString())
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().put("HOME", home.toString());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("BRAID_NO_BUILD", "1");
    pb.environment().put("BRAID_OPTS", "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    pb.environment().remove("KRB5CCNAME");
    pb.environment().remove("KRB5_CONFIG");
    Process p = pb.start();
    p.getOutputStream().close();
    int exit;
    try {
      boolean ended = p.waitFor(5, TimeUnit.MINUTES);
      exit = ended ? p.exitValue() : -1;
    } finally {
      stop(tmp.resolve("background.pid"));
      stop(home.resolve("braid-secure/kdc/krb5kdc.pid"));
      // Whatever else still runs of the script (a command it waited for, on a timeout or an
      // interrupt).
      p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String output = Files.readString(out);
    assertThat(exit).as("the walkthrough's script; its output:\n%s", output).isZero();
    assertThat(output.lines()).as(output).contains("hello from alice");
    assertThat(output).as(output).containsPattern("(?m)^-rw-r--r--  alice  .*  hello$");
    for (String refusal : expectedRefusals) {
      assertThat(output).as(output).contains(refusal);
    }
  }

  /** SIGTERM to the process (and its children) whose pid the file holds, if it exists. */
  private static void stop(Path pidFile) throws IOException, InterruptedException {
    if (!Files.exists(pidFile)) {
      return;
    }
    long pid = Long.parseLong(Files.readString(pidFile).strip());
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    if (handle.isEmpty()) {
      return;
    }
    ProcessHandle h = handle.get();
    h.descendants().forEach(ProcessHandle::destroy);
    h.destroy();
    try {
      h.onExit().get(15, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      h.destroyForcibly(); // SIGTERM was not enough within 15 s
    }
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static @Nullable Path which(String tool) {
    for (String dir : (System.getenv("PATH") + ":/usr/sbin:/sbin").split(":")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
