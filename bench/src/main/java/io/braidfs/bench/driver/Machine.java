package io.braidfs.bench.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine a run measured, as BENCHMARKING.md asks next to every figure: cores, memory, the work
 * directory's file system and device, the kernel, the OS and the JDK.
 */
final class Machine {
  private Machine() {}

  /** One Markdown line. */
  static String describe(Path work) {
    String mem = "?";
    try {
      for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (l.startsWith("MemTotal:")) {
          long kib = Long.parseLong(l.replaceAll("\\D+", ""));
          mem = String.format(Locale.ROOT, "%.1f GiB", kib / 1048576.0);
        }
      }
    } catch (IOException | NumberFormatException e) {
      mem = "? (" + e.getMessage() + ")";
    }
    return String.format(
        Locale.ROOT,
        "%d cores (%s), %s memory, work directory on %s, %s, Linux %s, %s %s (%s)",
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        mem,
        output("findmnt -n -o FSTYPE,SOURCE -T " + work.toAbsolutePath())
            .trim()
            .replaceAll("\\s+", " "),
        osName(),
        System.getProperty("os.version"),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        System.getProperty("java.vm.vendor"));
  }

  private static String cpuModel() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          return l.substring(l.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      return "?";
    }
    return "?";
  }

  private static String osName() {
    try {
      for (String l : Files.readAllLines(Path.of("/etc/os-release"))) {
        if (l.startsWith("PRETTY_NAME=")) {
          return l.substring(12).replace("\"", "");
        }
      }
    } catch (IOException e) {
      return "?";
    }
    return "?";
  }

  private static String output(String command) {
    try {
      Process p =
          new ProcessBuilder(List.of("sh", "-c", command)).redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      return s.isBlank() ? "?" : s;
    } catch (IOException e) {
      return "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }
}
