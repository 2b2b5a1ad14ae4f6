#!/usr/bin/env python3
"""Reads an `efferent export sqlite` file with Python's own sqlite3 and checks it against what it
was made from, for scripts/interop (documents/sql.md):

  sql_check.py events DB DAYS_DIR           `events` holds exactly the mirror's events, day by day
                                            and per metric: the mirror's day files are expanded by
                                            the independent reader (efferent_reader.expand_day), and
                                            each local time is computed here with zoneinfo
  sql_check.py daily DB METRICS DAILY_JSON…  `daily` equals `efferent daily --format json` for every
                                            day and metric those answers cover; METRICS is the file
                                            of metric names asked for, one a line
  sql_check.py snapshot DB OUT              each day's upload time, export time and a digest of its
                                            `events` and `daily` rows, as JSON
  sql_check.py changed DB BEFORE DAY…       after a re-export: the days rewritten are exactly those
                                            whose upload time changed, which are the DAYs given,
                                            and every other day's rows are as they were

Exits 1 with the first difference on standard error.
"""
import collections
import datetime
import hashlib
import itertools
import json
import math
import os
import sqlite3
import sys
import time
import zoneinfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import efferent_reader as reader  # noqa: E402

EVENT_COLUMNS = ("day, metric, kind, bucket, start_epoch, end_epoch, value, unit, source, stage, activity, "
                 "duration, start_time, end_time")


def fail(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(1)


def connect(path: str) -> sqlite3.Connection:
    # Read-only, as a person's Datasette or DuckDB would open a file they were handed.
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def number(value):
    return None if value is None else float(value)


def local_iso(epoch: int, zone, offsets: dict) -> str:
    """`epoch` in `zone` as ISO text with its offset. The offset is looked up once per quarter
    hour: every zone's offsets and changes fall on quarter hours of UTC."""
    offset = offsets.get(epoch // 900)
    if offset is None:
        offset = offsets[epoch // 900] = int(datetime.datetime.fromtimestamp(epoch, zone).utcoffset().total_seconds())
    t = time.gmtime(epoch + offset)
    sign, magnitude = ("-" if offset < 0 else "+"), abs(offset)
    return (f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
            f"{sign}{magnitude // 3600:02d}:{magnitude % 3600 // 60:02d}")


OFFSETS: dict = {}


def instant(text: str) -> int:
    """The reader writes whole-second UTC instants (`2025-06-01T07:30:00Z`)."""
    if len(text) != 20 or not text.endswith("Z"):
        fail(f"the reader expanded an instant written otherwise: {text}")
    return int(datetime.datetime.fromisoformat(text[:19] + "+00:00").timestamp())


def mirror_day(days_dir: str, day: str) -> collections.Counter:
    """One mirrored day's events as the rows `events` must hold for it."""
    with open(os.path.join(days_dir, day + ".json"), "rb") as f:
        body = f.read()
    text = body.decode("utf-8").strip()
    zone_name = json.loads(text).get("tz") if text.startswith("{") and "\n" not in text else None
    zone = zoneinfo.ZoneInfo(zone_name) if zone_name else datetime.timezone.utc
    offsets = OFFSETS.setdefault(zone_name, {})
    rows = collections.Counter()
    for event in reader.expand_day(body):
        start, end = instant(event["start"]), instant(event["end"])
        start_text = local_iso(start, zone, offsets)
        kind = {"agg": "total", "hk": "record"}[event["id"].split(":", 1)[0]]
        rows[(day, event["metric"], kind, event.get("bucket"), start, end, number(event.get("value")), event.get("unit"),
              event.get("source"), event.get("stage"), event.get("activity"), number(event.get("duration")),
              start_text, start_text if end == start else local_iso(end, zone, offsets))] += 1
    return rows


def check_events(db_path: str, days_dir: str) -> None:
    db = connect(db_path)
    mirrored = sorted(name[:-5] for name in os.listdir(days_dir) if name.endswith(".json"))
    stored_days = [row[0] for row in db.execute("SELECT day FROM days ORDER BY day")]
    if stored_days != mirrored:
        fail(f"`days` lists {len(stored_days)} days and the mirror holds {len(mirrored)}; "
             f"differing: {sorted(set(stored_days) ^ set(mirrored))[:5]}")
    per_metric = collections.Counter()
    rows = db.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY day")
    stored = itertools.groupby(rows, key=lambda row: row[0])
    next_stored = next(stored, None)
    for day in mirrored:
        expected = mirror_day(days_dir, day)
        got = collections.Counter()
        if next_stored is not None and next_stored[0] == day:
            got = collections.Counter(tuple(number(v) if i in (6, 11) else v for i, v in enumerate(row)) for row in next_stored[1])
            next_stored = next(stored, None)
        if got != expected:
            missing, extra = expected - got, got - expected
            fail(f"{day}: `events` differs from the mirror: {sum(missing.values())} of its events missing "
                 f"(first {next(iter(missing), None)}), {sum(extra.values())} not in it (first {next(iter(extra), None)})")
        for row, count in expected.items():
            per_metric[row[1]] += count
    if next_stored is not None:
        fail(f"`events` holds a day the mirror does not: {next_stored[0]}")
    listed = dict(db.execute("SELECT metric, events FROM metrics"))
    if listed != dict(per_metric):
        fail(f"`metrics` counts differ from the mirror's: {sorted((m, listed.get(m), per_metric.get(m)) for m in set(listed) | set(per_metric) if listed.get(m) != per_metric.get(m))[:5]}")
    print(f"{sum(per_metric.values())} events of {len(per_metric)} metrics over {len(mirrored)} days, as the mirror holds them")


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def check_daily(db_path: str, metrics_path: str, answers: list[str]) -> None:
    db = connect(db_path)
    metrics = [line.strip() for line in open(metrics_path, encoding="utf-8") if line.strip()]
    stored = {}
    for day, metric, kind, value, minimum, mean, maximum in db.execute("SELECT day, metric, kind, value, min, mean, max FROM daily"):
        stored[(day, metric)] = (kind, value, minimum, mean, maximum)
    expected = {}
    days = set()
    for path in answers:
        answer = json.load(open(path, encoding="utf-8"))
        columns = answer["columns"]
        for row in answer["rows"]:
            day = row[0]
            days.add(day)
            cells = dict(zip(columns, row))
            for metric in metrics:
                if metric in cells:
                    if cells[metric] is not None:
                        expected[(day, metric)] = ("total", cells[metric], None, None, None)
                elif cells.get(metric + ".mean") is not None:
                    mean = cells[metric + ".mean"]
                    expected[(day, metric)] = ("record", mean, cells[metric + ".min"], mean, cells[metric + ".max"])
    stored_in_range = {key: value for key, value in stored.items() if key[0] in days}
    if stored_in_range.keys() != expected.keys():
        fail(f"`daily` has {len(stored_in_range)} rows where `efferent daily` gives {len(expected)} values; "
             f"differing (day, metric): {sorted(stored_in_range.keys() ^ expected.keys())[:5]}")
    for key, want in expected.items():
        got = stored_in_range[key]
        if got[0] != want[0] or not all(close(a, b) for a, b in zip(got[1:], want[1:])):
            fail(f"`daily` {key}: {got}, and `efferent daily` gives {want}")
    print(f"`daily` equals `efferent daily`: {len(expected)} values of {len({m for _, m in expected})} metrics over {len(days)} days")


def snapshot(db_path: str) -> dict:
    db = connect(db_path)
    digests = collections.defaultdict(hashlib.sha256)
    for row in db.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY day, start_epoch, metric, source, end_epoch, value, stage, "
                          "activity, duration, bucket, unit"):
        digests[row[0]].update(repr(row).encode())
    daily = collections.defaultdict(hashlib.sha256)
    for row in db.execute("SELECT * FROM daily ORDER BY day, metric"):
        daily[row[0]].update(repr(row).encode())
    return {day: {"uploaded": uploaded, "exported": exported, "events": digests[day].hexdigest(), "daily": daily[day].hexdigest()}
            for day, uploaded, exported in db.execute("SELECT day, uploaded_at, exported_at FROM days")}


def check_changed(db_path: str, before_path: str, days: list[str]) -> None:
    before, after = json.load(open(before_path, encoding="utf-8")), snapshot(db_path)
    if before.keys() != after.keys():
        fail(f"the re-export holds other days: {sorted(before.keys() ^ after.keys())[:5]}")
    uploaded = sorted(day for day in after if after[day]["uploaded"] != before[day]["uploaded"])
    rewritten = sorted(day for day in after if after[day]["exported"] != before[day]["exported"])
    if uploaded != sorted(days):
        fail(f"the sync changed the upload times of {uploaded}, and the edit touched {sorted(days)}")
    if rewritten != uploaded:
        fail(f"the re-export rewrote {rewritten[:10]} ({len(rewritten)} days), and only {uploaded} changed")
    other_events = [day for day in after if day not in uploaded and after[day]["events"] != before[day]["events"]]
    if other_events:
        fail(f"the events of days that did not change differ after the re-export: {other_events[:5]}")
    # A day's readings can fall on the next local day (events are filed by the writer's day), so
    # `daily` may change the day after a changed day too, and nowhere else.
    near = {str(datetime.date.fromisoformat(day) + datetime.timedelta(days=offset)) for day in uploaded for offset in (0, 1)}
    other_daily = [day for day in after if day not in near and after[day]["daily"] != before[day]["daily"]]
    if other_daily:
        fail(f"`daily` changed on days the sync left alone: {other_daily[:5]}")
    changed_events = [day for day in uploaded if after[day]["events"] != before[day]["events"]]
    if changed_events != uploaded:
        fail(f"the changed days' events are as before on {sorted(set(uploaded) - set(changed_events))}")
    print(f"the re-export rewrote {len(rewritten)} of {len(after)} days, exactly those the sync changed ({', '.join(uploaded)})")


def main(argv: list[str]) -> None:
    if len(argv) >= 3 and argv[0] == "events":
        check_events(argv[1], argv[2])
    elif len(argv) >= 4 and argv[0] == "daily":
        check_daily(argv[1], argv[2], argv[3:])
    elif len(argv) == 3 and argv[0] == "snapshot":
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump(snapshot(argv[1]), f)
    elif len(argv) >= 4 and argv[0] == "changed":
        check_changed(argv[1], argv[2], argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main(sys.argv[1:])
