#!/usr/bin/env python3
"""Opens an `efferent export sqlite` file with the engines documents/sql.md names, as a person
would, for scripts/interop:

  engines_check.py DB SQL_MD

- sqlite3 (Python's) runs every worked query of sql.md (each ```sql block but the DuckDB one and
  Grafana's, whose `$__from` macros only Grafana fills in), and counts every table and view;
- DuckDB with its sqlite scanner attaches the file read-only as sql.md says, counts every table
  and view, and runs sql.md's DuckDB statements after its ATTACH;
- Datasette runs as sql.md's command line has it (`datasette --immutable FILE`, with the longer
  time limit sql.md gives for the `events` view), answering a page of every table and view, and
  every worked query, through `--get` (no port is opened).

Exits 1 naming the first engine, statement and error that failed.
"""
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys


def fail(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(1)


def blocks(markdown: str):
    """Every ```sql block of the document, with the text just before it (to tell what it is for)."""
    for match in re.finditer(r"```sql\n(.*?)```", markdown, re.S):
        yield markdown[max(0, match.start() - 200):match.start()], match.group(1)


def statements(sql: str):
    return [part.strip() for part in sql.split(";") if part.strip()]


def main() -> None:
    if len(sys.argv) != 3:
        fail(__doc__)
    # A query an engine plans badly must fail here, not take the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    database, document = sys.argv[1], sys.argv[2]
    markdown = open(document, encoding="utf-8").read()
    worked, duckdb_block = [], None
    for before, sql in blocks(markdown):
        if "ATTACH" in sql and "TYPE sqlite" in sql:
            duckdb_block = sql
        elif "$__" not in sql:
            worked += statements(sql)
    if duckdb_block is None or len(worked) < 3:
        fail(f"sql.md has {len(worked)} worked queries and {'a' if duckdb_block else 'no'} DuckDB block; the check expected both")

    # sqlite3, read-only as a person handed the file would open it.
    lite = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    names = [row[0] for row in lite.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
    for name in names:
        lite.execute(f'SELECT count(*) FROM "{name}"').fetchone()
    for sql in worked:
        try:
            lite.execute(sql).fetchall()
        except sqlite3.Error as error:
            fail(f"sqlite3: {error} in sql.md's query: {sql[:160]}")

    # DuckDB, its sqlite scanner loaded from the pip package (DuckDB cannot download it here).
    import duckdb
    import duckdb_extension_sqlite_scanner as scanner
    extension = os.path.join(os.path.dirname(scanner.__file__), "extensions", f"v{duckdb.__version__}", "sqlite_scanner.duckdb_extension")
    duck = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    duck.execute(f"LOAD '{extension}'")
    ran = 0
    for sql in statements(duckdb_block):
        if sql.upper().startswith(("INSTALL", "LOAD")):
            continue
        sql = sql.replace("'health.db'", f"'{database}'")
        try:
            duck.execute(sql).fetchall()
            ran += 1
        except duckdb.Error as error:
            fail(f"DuckDB: {str(error).splitlines()[0][:300]} in sql.md's statement: {sql[:160]}")
    # The storage tables behind `events` keep their rows WITHOUT ROWID (a decade's millions of
    # events, stored once), which DuckDB's scanner cannot count with count(*); sql.md says to
    # query the views, and DuckDB counts them.
    internal = {"event_rows", "series_days", "sample_runs"}
    # `events_utc` is SQLite's to run (its UNION), and DuckDB refuses it by design (SQLSchema).
    internal.add("events_utc")
    for name in names:
        if name in internal:
            continue
        try:
            duck.execute(f'SELECT count(*) FROM health."{name}"').fetchone()
        except duckdb.Error as error:
            fail(f"DuckDB cannot count {name}: {str(error).splitlines()[0][:300]}")

    # Datasette, started as sql.md writes it; --get answers one path and exits.
    stem = os.path.splitext(os.path.basename(database))[0]
    def get(path: str) -> dict:
        done = subprocess.run(["datasette", "--immutable", database, "--setting", "sql_time_limit_ms", "60000", "--get", path],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            fail(f"Datasette: {path} exited {done.returncode}: {(done.stderr or done.stdout).strip()[:300]}")
        try:
            return json.loads(done.stdout)
        except json.JSONDecodeError:
            fail(f"Datasette: {path} did not answer JSON: {done.stdout[:200]}")
    for name in names:
        answer = get(f"/{stem}/{name}.json?_size=1")
        if "rows" not in answer:
            fail(f"Datasette: /{stem}/{name}.json has no rows: {str(answer)[:200]}")
    from urllib.parse import quote
    for sql in worked:
        answer = get(f"/{stem}.json?sql={quote(sql)}&_shape=objects")
        if "rows" not in answer or answer.get("ok") is False:
            fail(f"Datasette: {str(answer.get('error', answer))[:300]} in sql.md's query: {sql[:160]}")
    print(f"sqlite3 ran {len(worked)} worked queries and counted {len(names)} tables and views; DuckDB ran {ran} statements and counted "
          f"{len(names) - len(internal & set(names))} of them (all but the storage tables); Datasette answered every table, view and query")


if __name__ == "__main__":
    main()
