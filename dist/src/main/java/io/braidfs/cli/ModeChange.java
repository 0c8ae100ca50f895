package io.braidfs.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A chmod(1) mode argument: octal ({@code 755}, {@code 1777}), which sets all twelve bits as {@code
 * hdfs dfs -chmod} does, or symbolic clauses separated by commas ({@code u+x}, {@code go-w}, {@code
 * a=rX}, {@code +t}), applied in turn as coreutils applies them, except that a clause with no who
 * letter applies to all whatever the umask (as HDFS).
 *
 * <p>Thread-safety: immutable.
 */
final class ModeChange {
  private static final int SETUID = 04000;
  private static final int SETGID = 02000;
  private static final int STICKY = 01000;

  /** One {@code [ugoa]*[-+=][rwxXst]*} action; octal modes are one '=' over all bits. */
  private record Action(int who, char op, String perms) {}

  private final String text;
  private final int octal;
  private final List<Action> actions;

  private ModeChange(String text, int octal, List<Action> actions) {
    this.text = text;
    this.octal = octal;
    this.actions = actions;
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  static ModeChange parse(String text) {
    if (text.matches("[0-7]{1,4}")) {
      return new ModeChange(text, Integer.parseInt(text, 8), List.of());
    }
    List<Action> actions = new ArrayList<>();
    for (String clause : text.split(",", -1)) {
      int i = 0;
      int who = 0;
      for (; i < clause.length() && "ugoa".indexOf(clause.charAt(i)) >= 0; i++) {
        who |=
            switch (clause.charAt(i)) {
              case 'u' -> 04700;
              case 'g' -> 02070;
              case 'o' -> 01007;
              default -> 07777;
            };
      }
      if (who == 0) {
        who = 07777;
      }
      if (i == clause.length()) {
        throw new IllegalArgumentException(
            "mode '" + text + "': '" + clause + "' has no +, - or =");
      }
      while (i < clause.length()) {
        char op = clause.charAt(i++);
        if ("+-=".indexOf(op) < 0) {
          throw new IllegalArgumentException(
              "mode '" + text + "': '" + op + "' in '" + clause + "' is not +, - or =");
        }
        int start = i;
        while (i < clause.length() && "rwxXst".indexOf(clause.charAt(i)) >= 0) {
          i++;
        }
        if (i < clause.length() && "+-=".indexOf(clause.charAt(i)) < 0) {
          throw new IllegalArgumentException(
              "mode '"
                  + text
                  + "': '"
                  + clause.charAt(i)
                  + "' in '"
                  + clause
                  + "' is not one of r, w, x, X, s, t");
        }
        actions.add(new Action(who, op, clause.substring(start, i)));
      }
    }
    return new ModeChange(text, -1, List.copyOf(actions));
  }

  /** The mode of an inode whose mode is {@code mode} (07777 bits) after this change. */
  int apply(int mode, boolean directory) {
    if (octal >= 0) {
      return octal;
    }
    int m = mode;
    for (Action a : actions) {
      int bits = 0;
      for (char c : a.perms().toCharArray()) {
        bits |=
            switch (c) {
              case 'r' -> 0444;
              case 'w' -> 0222;
              // X: execute only for directories and files someone may execute (by now)
              case 'X' -> directory || (m & 0111) != 0 ? 0111 : 0;
              case 'x' -> 0111;
              case 's' -> SETUID | SETGID;
              default -> STICKY;
            };
      }
      bits &= a.who();
      m =
          switch (a.op()) {
            case '+' -> m | bits;
            case '-' -> m & ~bits;
            // '=' replaces who's bits, as coreutils does: a directory keeps its set-id bits unless
            // the clause names s
            default ->
                (m & ~(directory && a.perms().indexOf('s') < 0 ? a.who() & 01777 : a.who())) | bits;
          };
    }
    return m & 07777;
  }

  @Override
  public String toString() {
    return text;
  }
}
