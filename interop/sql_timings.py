#!/usr/bin/env python3
"""Times the DuckDB and Datasette queries documents/sql.md documents, each beside the same query
on the `daily` table, over an `efferent export sqlite` file, for `scripts/bench sql`:

  sql_timings.py DB

Prints one JSON object: for each query its median seconds over 3 runs (after one to warm the
page cache) and its reference's, so the bench prints them as a ratio. DuckDB attaches the file
read-only with its sqlite scanner, as sql.md says; Datasette answers pages in process (its own
test client, so its start-up is not counted), with sql.md's settings.
"""
import asyncio
import json
import os
import statistics
import sys
import time

# (name, documented, reference on daily)
DUCKDB = [
    ("duckdb: 90th percentile of heart rate (readings)",
     "SELECT metric, quantile_cont(value, 0.9) FROM health.readings WHERE metric = 'heartRate' GROUP BY metric",
     "SELECT metric, quantile_cont(value, 0.9) FROM health.daily WHERE metric = 'heartRate' GROUP BY metric"),
    ("duckdb: the last 7 days of steps (metric_daily)",
     "SELECT day, value FROM health.metric_daily WHERE metric = 'steps' ORDER BY day DESC LIMIT 7",
     "SELECT day, value FROM health.daily WHERE metric = 'steps' ORDER BY day DESC LIMIT 7"),
]
DATASETTE = [
    ("datasette: a page of readings", "/{db}/readings.json?_size=100", "/{db}/daily.json?_size=100", 3),
    ("datasette: a page of events, ?_nocount=1", "/{db}/events.json?_size=100&_nocount=1", "/{db}/daily.json?_size=100&_nocount=1", 3),
    # Counting every event of the view is the slow part, said per year in sql.md: timed once.
    ("datasette: a page of events, counted", "/{db}/events.json?_size=100", "/{db}/daily.json?_size=100", 1),
]


def median(run, times=3):
    run()
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        spent.append(time.perf_counter() - started)
    return statistics.median(spent)


def main() -> None:
    database = os.path.abspath(sys.argv[1])
    out = {}
    import duckdb
    import duckdb_extension_sqlite_scanner as scanner
    extension = os.path.join(os.path.dirname(scanner.__file__), "extensions", f"v{duckdb.__version__}", "sqlite_scanner.duckdb_extension")
    duck = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    duck.execute(f"LOAD '{extension}'")
    duck.execute(f"ATTACH '{database}' AS health (TYPE sqlite, READ_ONLY)")
    for name, documented, reference in DUCKDB:
        out[name] = {"seconds": median(lambda: duck.execute(documented).fetchall()),
                     "reference": median(lambda: duck.execute(reference).fetchall())}

    from datasette.app import Datasette
    stem = os.path.splitext(os.path.basename(database))[0]
    # sql.md's command line: --immutable, no facet suggestions, and a time limit long enough to count `events`.
    site = Datasette(immutables=[database], settings={"sql_time_limit_ms": 600000, "suggest_facets": False})

    async def pages():
        await site.invoke_startup()
        for name, documented, reference, runs in DATASETTE:
            timed = {}
            for key, path in (("seconds", documented), ("reference", reference)):
                async def get(path=path):
                    response = await site.client.get(path.format(db=stem))
                    if response.status_code != 200:
                        raise SystemExit(f"Datasette answered {response.status_code} to {path}: {response.text[:200]}")
                spent = []
                if runs > 1:
                    await get()
                for _ in range(runs):
                    started = time.perf_counter()
                    await get()
                    spent.append(time.perf_counter() - started)
                timed[key] = statistics.median(spent)
            out[name] = timed

    asyncio.run(pages())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
