package io.braidfs.mds.ha;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The journal's ledgers in order, as kept in one znode: each leader term writes one ledger, whose
 * first record has index {@link Ledger#firstIndex()}. Stored as text, one {@code "ledgerId
 * firstIndex"} line per ledger, so {@code zkCli get} shows it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param ledgers oldest first
 */
public record LedgerList(List<Ledger> ledgers) {
  /** One ledger and the index of the first record it holds (or will hold). */
  public record Ledger(long id, long firstIndex) {}

  public static final LedgerList EMPTY = new LedgerList(List.of());

  public LedgerList {
    ledgers = List.copyOf(ledgers);
  }

  /** This list with {@code ledger} appended. */
  public LedgerList plus(Ledger ledger) {
    List<Ledger> more = new ArrayList<>(ledgers);
    more.add(ledger);
    return new LedgerList(more);
  }

  /**
   * This list without its oldest ledgers whose every record precedes {@code keepFrom}: a ledger
   * goes only when the next one starts at or before {@code keepFrom}, so the last ledger always
   * stays and what remains has no gap.
   */
  public LedgerList trimmedBefore(long keepFrom) {
    int drop = 0;
    while (drop + 1 < ledgers.size() && ledgers.get(drop + 1).firstIndex() <= keepFrom) {
      drop++;
    }
    return drop == 0 ? this : new LedgerList(ledgers.subList(drop, ledgers.size()));
  }

  /** The index of the first record the journal still holds; 1 when the list is empty. */
  public long firstIndex() {
    return ledgers.isEmpty() ? 1 : ledgers.get(0).firstIndex();
  }

  /**
   * The index of the ledger holding record {@code index}: the last one starting at or before it.
   */
  public int ledgerOf(long index) {
    for (int i = ledgers.size() - 1; i >= 0; i--) {
      if (ledgers.get(i).firstIndex() <= index) {
        return i;
      }
    }
    return -1;
  }

  public byte[] encode() {
    StringBuilder s = new StringBuilder();
    for (Ledger l : ledgers) {
      s.append(l.id()).append(' ').append(l.firstIndex()).append('\n');
    }
    return s.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Parses what {@link #encode} wrote; empty or absent data is the empty list.
   *
   * @throws IllegalArgumentException naming the bad line
   */
  public static LedgerList decode(byte @org.jspecify.annotations.Nullable [] data) {
    if (data == null || data.length == 0) {
      return EMPTY;
    }
    List<Ledger> out = new ArrayList<>();
    for (String line : new String(data, StandardCharsets.US_ASCII).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.trim().split(" ");
      try {
        out.add(new Ledger(Long.parseLong(f[0]), Long.parseLong(f[1])));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("malformed journal ledger list line '" + line + "'", e);
      }
    }
    return new LedgerList(out);
  }
}
