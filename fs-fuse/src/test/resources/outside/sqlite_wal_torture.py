"""SQLite in WAL mode on a Braid mount: ROWS single-row transactions, each one commit, on a table
with an index, then PRAGMA integrity_check. Issue 24 found "wrong # of entries in index" here.

Usage: sqlite_wal_torture.py write DB ROWS   (creates DB, prints "ok" and the row count)
       sqlite_wal_torture.py check DB ROWS   (opens DB read-only elsewhere, checks it the same way)
Exits 1 with the failing check on stderr.
"""

import sqlite3
import sys


def check(db, rows):
    problems = [r[0] for r in db.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        sys.exit("integrity_check: " + "; ".join(problems[:10]))
    n, total = db.execute("SELECT count(*), coalesce(sum(v), 0) FROM t").fetchone()
    want_total = sum(i * 7 % 1000 for i in range(rows))
    if (n, total) != (rows, want_total):
        sys.exit(f"rows: {n} (want {rows}), sum: {total} (want {want_total})")
    k = db.execute("SELECT count(*) FROM t INDEXED BY t_k WHERE k >= ''").fetchone()[0]
    if k != rows:
        sys.exit(f"index t_k holds {k} entries, the table {rows}")
    print("ok", n)


def main():
    mode, path, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "write":
        db = sqlite3.connect(path, isolation_level=None)
        if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
            sys.exit("WAL mode refused")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, v INTEGER, pad BLOB)")
        db.execute("CREATE INDEX t_k ON t (k)")
        for i in range(rows):
            db.execute("BEGIN")
            db.execute(
                "INSERT INTO t (id, k, v, pad) VALUES (?, ?, ?, randomblob(?))",
                (i, f"key-{i * 7919 % rows:08d}-{i}", i * 7 % 1000, 50 + i % 400),
            )
            db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        check(db, rows)
        db.close()
    elif mode == "check":
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        check(db, rows)
        db.close()
    else:
        sys.exit("mode must be write or check")


if __name__ == "__main__":
    main()
