package io.braidfs.bench.driver;

import io.braidfs.bench.Throughputs;
import io.braidfs.bench.fuse.SourceBuild;
import io.braidfs.bench.ref.BindfsMount;
import io.braidfs.bench.ref.BraidSystem;
import io.braidfs.bench.ref.Sshd;
import io.braidfs.bench.ref.Sshfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Experiment 7, build a source tree (after the PVFS-NFS proxy and HA8000 papers): Debian's redis
 * source unpacked with {@code tar x} and built with {@code make} ({@link SourceBuild}, as {@code
 * FuseBench} does) on the Braid FUSE mount, the local disk, bindfs and sshfs, systems alternating
 * in each round.
 *
 * <p>sshfs connects straight to its sshd over loopback, without the link emulator: this experiment
 * is about the cost of each file system's path on one machine, and with the emulator's zero delay
 * it would only add the proxy's copying.
 */
final class BuildExperiment implements Experiment {
  private static final String BRAID = "Braid";
  private static final String LOCAL = "local disk";
  private static final String BINDFS = "bindfs";
  private static final String SSHFS = "sshfs";

  /** A system: its name and the directory the tree is built in. */
  private record Target(String system, Path dir) {}

  @Override
  public int number() {
    return 7;
  }

  @Override
  public String name() {
    return "build";
  }

  @Override
  public String title() {
    return "Build a source tree (redis, tar x + make)";
  }

  @Override
  public String description(Run run) {
    return String.format(
        Locale.ROOT,
        "Debian's redis source (`%s`, from bench/bench-setup.sh) unpacked with `tar xzf` and built"
            + " with `%s`%s, in a fresh directory of each system per round: the Braid FUSE mount"
            + " (a MiniCluster in the driver's JVM, 1 MDS and 3 data servers on the work disk,"
            + " replication 1, stripe width 3, default mount options), the local disk (ext4),"
            + " bindfs over a local directory (FUSE alone), and sshfs to its own sshd over"
            + " loopback, without the link emulator (default caching: kernel page cache, sshfs"
            + " read-ahead, `dir_cache=yes`). %d round(s), the systems in a different order each"
            + " round, after one unrecorded `tar x` on the Braid mount (JIT warm-up). Times in"
            + " seconds; \"total\" is tar x + make.",
        tarballName(),
        command(run),
        run.quick()
            ? " (quick: only the `redis-cli` target, its dependencies hiredis, linenoise, lua and"
                + " hdr_histogram and 15 objects of its own, for every system alike, because a"
                + " whole build takes minutes on sshfs; the full run builds everything)"
            : "",
        rounds(run));
  }

  private static int rounds(Run run) {
    return run.rounds(1, 3);
  }

  private static String command(Run run) {
    return run.quick() ? SourceBuild.defaultCommand() + " redis-cli" : SourceBuild.defaultCommand();
  }

  private static String tarballName() {
    try {
      return SourceBuild.findTarball(tarballDir()).getFileName().toString();
    } catch (IOException e) {
      return "redis_*.orig.tar.gz";
    }
  }

  /** Where bench/bench-setup.sh leaves the tarball, from the repository's top directory. */
  private static Path tarballDir() {
    return Path.of("target", "bench-src");
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    SourceBuild build = new SourceBuild(SourceBuild.findTarball(tarballDir()), command(run));
    Path dir = run.scratch("exp7-build");
    Sshd sshd = null;
    if (Run.installed("sshfs")) {
      sshd = run.shared("sshd", () -> Sshd.start(run.scratch("sshd")));
    } else {
      results.note("sshfs is not installed (bench/bench-setup.sh installs it): left out.");
    }
    BindfsMount bind = SharedReferences.bindfs(run);
    if (bind == null) {
      results.note("bindfs is not installed (bench/bench-setup.sh installs it): left out.");
    }
    BraidSystem braid = SharedReferences.braid(run);
    Path local = Files.createDirectories(dir.resolve("local"));
    Path sshRemote = Files.createDirectories(dir.resolve("sshfs-remote"));
    // Each system builds in a directory of its own, emptied afterwards.
    Path braidDir = Files.createDirectories(braid.mount().resolve("exp7-build"));
    Path bindDir =
        bind == null ? null : Files.createDirectories(bind.mount().resolve("exp7-build"));
    // A null resource (sshfs not installed) is skipped by try-with-resources.
    try (Sshfs sshfs =
        sshd == null
            ? null
            : Sshfs.mount(
                sshd, sshd.address(), sshRemote, Files.createDirectories(dir.resolve("ssh")))) {
      List<Target> targets = new ArrayList<>();
      targets.add(new Target(LOCAL, local));
      if (bindDir != null) {
        targets.add(new Target(BINDFS, bindDir));
      }
      targets.add(new Target(BRAID, braidDir));
      if (sshfs != null) {
        targets.add(new Target(SSHFS, sshfs.directory()));
      }
      // Warm-up, unrecorded: the mount's code is compiled by the JIT before the first round.
      build.unpack(braidDir, "warm-up");
      String row = build.tarball().getFileName().toString();
      for (int round = 0; round < rounds(run); round++) {
        for (Target t : Run.rotate(targets, round)) {
          SourceBuild.Times times = build.run(t.dir(), "build-" + round);
          results.record(
              "tar x", row, Double.NaN, t.system(), round, times.unpackSeconds(), Unit.SECONDS);
          results.record(
              "make", row, Double.NaN, t.system(), round, times.buildSeconds(), Unit.SECONDS);
          results.record(
              "total", row, Double.NaN, t.system(), round, times.totalSeconds(), Unit.SECONDS);
        }
      }
    }
    // The trees go with their directories: faster on the local paths than through each mount
    // (the shared mounts' trees through them, as other experiments still use those mounts).
    Throughputs.deleteTree(dir);
    Throughputs.deleteTree(braidDir);
    if (bindDir != null) {
      Throughputs.deleteTree(bindDir);
    }
    results.ratio(BRAID, LOCAL);
    results.ratio(BRAID, BINDFS);
    results.ratio(BRAID, SSHFS);
  }
}
