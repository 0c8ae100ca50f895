package io.braidfs.testing.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The process cluster for scripts and people: starts one, prints its hosts, then reads commands,
 * one a line, from stdin until it ends, and tears everything down (also on SIGTERM or Ctrl-C).
 *
 * <pre>
 * java -cp fs-testing/target/classes io.braidfs.testing.process.ProcessClusterMain \
 *     --tarball dist/target/braid-VERSION.tar.gz [--data-servers N] [--clients a,b]
 *     [--dir DIR] [-D key=value]...
 * </pre>
 *
 * <p>Commands: {@code kill HOST}, {@code pause HOST}, {@code resume HOST}, {@code link-down HOST},
 * {@code link-up HOST}, {@code restart HOST}, {@code describe}, {@code quit}; each answers {@code
 * ok} or {@code error: ...} on one line.
 *
 * <p>Thread-safety: a program; one thread.
 */
public final class ProcessClusterMain {
  private ProcessClusterMain() {}

  public static void main(String[] args) throws Exception {
    Path tarball = null;
    Path dir = Path.of("target/process-cluster");
    int dataServers = 3;
    String[] clients = {"client"};
    List<String[]> settings = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--tarball" -> tarball = Path.of(value);
        case "--dir" -> dir = Path.of(value);
        case "--data-servers" -> dataServers = Integer.parseInt(value);
        case "--clients" -> clients = value.split(",");
        case "-D" -> settings.add(value.split("=", 2));
        default -> usage("unknown option " + args[i]);
      }
      i++;
    }
    if (tarball == null) {
      usage("--tarball is required");
      return;
    }
    HostNetwork.unavailableReason().ifPresent(r -> usage("cannot run here: " + r));
    BraidInstall install = BraidInstall.unpack(tarball, dir.resolve("install"));
    ProcessCluster.Builder b =
        ProcessCluster.builder(install, dir).dataServers(dataServers).clients(clients);
    for (String[] s : settings) {
      if (s.length != 2) {
        usage("-D takes key=value");
      }
      b.set(s[0], s[1]);
    }
    try (ProcessCluster c = b.build()) {
      c.start();
      print(c, install);
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] f = line.strip().split("\\s+");
        if (f[0].equals("quit")) {
          break;
        }
        try {
          run(c, f);
          System.out.println("ok");
        } catch (IOException | RuntimeException | AssertionError e) {
          System.out.println("error: " + e.getMessage());
        }
      }
    }
  }

  private static void run(ProcessCluster c, String[] f) throws Exception {
    if (f[0].equals("describe")) {
      System.out.println(c.describe());
      return;
    }
    if (f.length != 2) {
      throw new IllegalArgumentException(
          "commands: kill|pause|resume|link-down|link-up|restart HOST, describe, quit");
    }
    String host = f[1];
    switch (f[0]) {
      case "kill" -> c.kill(host);
      case "pause" -> c.pause(host);
      case "resume" -> c.resume(host);
      case "link-down" -> c.linkDown(host);
      case "link-up" -> c.linkUp(host);
      case "restart" -> c.restart(host);
      default -> throw new IllegalArgumentException("unknown command " + f[0]);
    }
  }

  private static void print(ProcessCluster c, BraidInstall install) {
    HostNetwork n = c.network();
    System.out.println(
        "process cluster: run " + n.run() + ", " + n.subnet() + ", logs in " + c.logDir());
    for (Host h : c.hosts()) {
      String pid;
      try {
        pid = "pid " + c.process(h.name()).pid();
      } catch (IllegalArgumentException e) {
        pid = "(no server)";
      }
      System.out.printf("  %-8s %-15s netns %-22s %s%n", h.name(), h.address(), h.namespace(), pid);
    }
    System.out.println("  MDS:     " + c.mdsAddress());
    Host first = c.hosts().get(c.hosts().size() - 1);
    System.out.println(
        "  Files:   ip netns exec "
            + first.namespace()
            + " "
            + install.command()
            + " fs --mds "
            + c.mdsAddress()
            + " ls /");
    System.out.println(
        "process cluster ready (commands on stdin: kill|pause|resume|link-down|link-up|restart"
            + " HOST, describe, quit)");
    System.out.flush();
  }

  private static void usage(String problem) {
    System.err.println("ProcessClusterMain: " + problem);
    System.err.println(
        "usage: ProcessClusterMain --tarball FILE [--data-servers N] [--clients a,b] [--dir DIR]"
            + " [-D key=value]...");
    System.exit(2);
  }
}
