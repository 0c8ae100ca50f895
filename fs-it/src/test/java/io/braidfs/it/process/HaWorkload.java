package io.braidfs.it.process;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.mds.journal.JournalReplayer;
import io.braidfs.mds.journal.WalJournal;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The client side of the HA test under a nemesis (Jepsen's shape): concurrent namespace operations
 * whose every outcome is recorded, a checker of the final namespace against those records, and a
 * digest of each replica's store.
 *
 * <pre>
 * HaWorkload MDS run OUT STOPFILE THREADS  -> each thread loops mkdir, create+write+close, rename
 *                                             of fresh names under /w until STOPFILE exists, and
 *                                             appends "OP PATH [TO] ok|failed|unknown" to OUT;
 *                                             prints "run ok=N failed=F unknown=U"
 * HaWorkload MDS check OUT                 -> prints "check ok=N failed=F unknown=U inodes=I
 *                                             violations=V", then one "violation ..." line each
 * HaWorkload - digest DIR...               -> brings every stopped replica store up to the most
 *                                             advanced one's journal, then prints
 *                                             "digest DIR index=N sha256=HEX" per store
 * </pre>
 *
 * <p>Outcomes: ok when the call returned; failed when it was refused with a definite status
 * (ALREADY_EXISTS, NOT_FOUND, ...), so it must have changed nothing; unknown when the client gave
 * up (UNAVAILABLE, timeouts), so either is allowed.
 *
 * <p>Thread-safety: a program.
 */
public final class HaWorkload {
  private HaWorkload() {}

  public static void main(String[] args) throws Exception {
    switch (args[1]) {
      case "run" -> run(args[0], Path.of(args[2]), Path.of(args[3]), Integer.parseInt(args[4]));
      case "check" -> check(args[0], Path.of(args[2]));
      case "digest" -> digest(List.of(args).subList(2, args.length));
      default -> throw new IllegalArgumentException("unknown command " + args[1]);
    }
  }

  private static BraidClient client(String mds) throws IOException {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of("braid.client.mds", mds, "braid.client.mds.failover-timeout", "30s"));
    return BraidClient.builder(config).name("ha-workload").build();
  }

  private static String outcome(IOException e) {
    Status s = StatusExceptions.statusOf(e);
    return switch (s) {
      case ALREADY_EXISTS,
          NOT_FOUND,
          NOT_DIRECTORY,
          IS_DIRECTORY,
          PERMISSION_DENIED,
          INVALID_ARGUMENT ->
          "failed";
      default -> "unknown";
    };
  }

  private static void run(String mds, Path out, Path stop, int threads) throws Exception {
    try (BraidClient c = client(mds);
        PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      c.mkdirs("/w", 0755);
      AtomicBoolean done = new AtomicBoolean();
      int[] counts = new int[3];
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread th =
            new Thread(
                () -> {
                  for (int n = 0; !done.get(); n++) {
                    String line = step(c, id, n);
                    String result = line.split(" # ")[0];
                    synchronized (w) {
                      w.println(line);
                      w.flush();
                      counts[result.endsWith(" ok") ? 0 : result.endsWith(" failed") ? 1 : 2]++;
                    }
                  }
                },
                "worker-" + t);
        th.start();
        workers.add(th);
      }
      while (!Files.exists(stop)) {
        Thread.sleep(50);
      }
      done.set(true);
      for (Thread th : workers) {
        th.join();
      }
      System.out.println("run ok=" + counts[0] + " failed=" + counts[1] + " unknown=" + counts[2]);
    }
  }

  /** One operation on a fresh name; renames move the file this thread created one step before. */
  private static String step(BraidClient c, int t, int n) {
    String d = "/w/d-" + t + "-" + n;
    String f = "/w/f-" + t + "-" + n;
    String prev = "/w/f-" + t + "-" + (n - 1);
    String moved = "/w/g-" + t + "-" + (n - 1);
    String line;
    try {
      switch (n % 3) {
        case 0 -> {
          line = "mkdir " + d;
          c.mkdir(d, 0755);
        }
        case 1 -> {
          line = "create " + f;
          try (BraidOutputStream o =
              c.create(f, CreateOptions.defaults().withCreateParents(false))) {
            o.write(f.getBytes(StandardCharsets.UTF_8));
          }
        }
        default -> {
          line = "rename " + prev + " " + moved;
          c.rename(prev, moved);
        }
      }
      return line + " ok";
    } catch (IOException e) {
      String op =
          n % 3 == 0 ? "mkdir " + d : n % 3 == 1 ? "create " + f : "rename " + prev + " " + moved;
      // After " # ": why, for whoever reads the records; the checker ignores it.
      return op
          + " "
          + outcome(e)
          + " # "
          + StatusExceptions.statusOf(e)
          + " "
          + String.valueOf(e.getMessage()).replace('\n', ' ');
    }
  }

  private static void check(String mds, Path out) throws IOException {
    List<String> records = new ArrayList<>();
    for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
      records.add(line.split(" # ")[0]);
    }
    List<String> violations = new ArrayList<>();
    int ok = 0;
    int failed = 0;
    int unknown = 0;
    try (BraidClient c = client(mds)) {
      Map<String, Long> present = new HashMap<>();
      Set<Long> inodes = new HashSet<>();
      for (DirectoryEntry e : c.list("/w")) {
        present.put("/w/" + e.name(), e.inodeId());
        if (!inodes.add(e.inodeId())) {
          violations.add("duplicate inode " + e.inodeId() + " at /w/" + e.name());
        }
      }
      // What an ok create left: the file, or (renamed by an ok or unknown rename) its new name.
      Map<String, String> renamed = new HashMap<>();
      for (String r : records) {
        String[] f = r.split(" ");
        if (f[0].equals("rename") && !f[3].equals("failed")) {
          renamed.put(f[1], f[2] + " " + f[3]);
        }
      }
      for (String r : records) {
        String[] f = r.split(" ");
        String result = f[f.length - 1];
        switch (result) {
          case "ok" -> ok++;
          case "failed" -> failed++;
          default -> unknown++;
        }
        switch (f[0]) {
          case "mkdir" -> {
            if (result.equals("ok") && !present.containsKey(f[1])) {
              violations.add("acknowledged mkdir lost: " + f[1]);
            } else if (result.equals("failed") && present.containsKey(f[1])) {
              violations.add("failed mkdir applied: " + f[1]);
            }
          }
          case "create" -> {
            String to = renamed.get(f[1]);
            String renameResult = to == null ? null : to.split(" ")[1];
            String where = to == null ? f[1] : to.split(" ")[0];
            boolean atFrom = present.containsKey(f[1]);
            boolean atTo = to != null && present.containsKey(where);
            if (result.equals("ok")) {
              if (!atFrom && !atTo) {
                violations.add("acknowledged create lost: " + f[1]);
              } else if ("ok".equals(renameResult) && atFrom) {
                violations.add("acknowledged rename not applied: " + f[1] + " -> " + where);
              } else {
                String path = atTo ? where : f[1];
                byte[] data = read(c, path);
                if (!new String(data, StandardCharsets.UTF_8).equals(f[1])) {
                  violations.add(
                      "wrong contents in "
                          + path
                          + ": '"
                          + new String(data, StandardCharsets.UTF_8)
                          + "'");
                }
              }
            } else if (result.equals("failed") && (atFrom || atTo)) {
              violations.add("failed create applied: " + f[1]);
            }
          }
          case "rename" -> {
            if (result.equals("failed") && present.containsKey(f[2])) {
              violations.add("failed rename applied: " + f[1] + " -> " + f[2]);
            }
          }
          default -> violations.add("unparsable record: " + r);
        }
      }
      System.out.println(
          "check ok="
              + ok
              + " failed="
              + failed
              + " unknown="
              + unknown
              + " inodes="
              + inodes.size()
              + " violations="
              + violations.size());
      for (String v : violations) {
        System.out.println("violation " + v);
      }
    }
  }

  private static byte[] read(BraidClient c, String path) throws IOException {
    try (BraidInputStream in = c.open(path)) {
      return in.readAllBytes();
    }
  }

  /**
   * Opens each stopped replica's store, replays into each the records it lacks from the most
   * advanced one (a standby may be a record behind its leader), and digests every column family.
   */
  private static void digest(List<String> dirs) throws IOException {
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.mds.store.sync", "false"));
    List<RocksMetadataStore> stores = new ArrayList<>();
    List<WalJournal> journals = new ArrayList<>();
    try {
      for (String d : dirs) {
        RocksMetadataStore s =
            new RocksMetadataStore("digest", StoreOptions.from(config).withDir(Path.of(d)));
        s.start();
        stores.add(s);
        WalJournal j = new WalJournal("digest", s, config, Clock.system());
        j.start();
        journals.add(j);
      }
      WalJournal ahead = journals.get(0);
      for (WalJournal j : journals) {
        if (j.lastIndex() > ahead.lastIndex()) {
          ahead = j;
        }
      }
      for (int i = 0; i < dirs.size(); i++) {
        WalJournal j = journals.get(i);
        long behind = ahead.lastIndex() - j.lastIndex();
        if (j != ahead && behind > 0) {
          JournalReplayer.replay(ahead, j);
        }
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (ColumnFamily f : ColumnFamily.values()) {
          byte[] cursor = null;
          do {
            ScanPage page = stores.get(i).scan(f, new byte[0], cursor, 4096);
            for (ScanPage.Entry e : page.entries()) {
              md.update(e.key());
              md.update(e.value());
            }
            cursor = page.hasMore() ? page.cursor() : null;
          } while (cursor != null);
        }
        System.out.println(
            "digest "
                + dirs.get(i)
                + " index="
                + j.lastIndex()
                + " behind="
                + behind
                + " sha256="
                + HexFormat.of().formatHex(md.digest()));
      }
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    } finally {
      for (WalJournal j : journals) {
        j.close();
      }
      for (RocksMetadataStore s : stores) {
        s.close();
      }
    }
  }
}
