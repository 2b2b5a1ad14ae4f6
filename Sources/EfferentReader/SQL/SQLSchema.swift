import EfferentCore
import EfferentSQLite

/// The schema of `efferent export sqlite` and of the copy `efferent sql` keeps beside the mirror
/// (documents/sql.md). Stable: a change that breaks a query written against it raises `version`,
/// and a file of another version is rebuilt whole rather than patched.
///
/// Events are stored compactly — one row per event in `event_rows`, the fields every row of a
/// layout-2 series shares once in `series` — and read through the `events` view, which joins them
/// and writes each instant as local ISO text with its offset. A decade is millions of events: this
/// keeps the file about a third of the size of one wide table, and the build correspondingly faster.
///
/// Readings — records with a value and nothing else (heart rate, weight, blood oxygen, …), what
/// an analyst aggregates — are kept typed in `readings`, one ordinary rowid table with the metric,
/// unit and source in each row, and not in `event_rows`: DuckDB's sqlite scanner reads a table
/// with its declared types, where every column of a view arrives as text and the view itself is
/// run by SQLite (the documented heart-rate quantile over a generated two-year export took 61 s
/// over `events` and 1.1 s over `readings` in one run on a loaded machine). Its `start_time` is a
/// virtual generated column, local text computed when read, stored nowhere.
///
/// The samples faster than a second (route fixes, ECG voltages, beats, audiogram points) are four
/// fifths of an every-type decade's events and no one reads them one SQL row at a time: each
/// day's run of one such series is one `sample_runs` row holding its events as a JSON array, which
/// the view unrolls with `json_each`. Inserting a row costs SQLite about 2 µs here whatever it
/// holds, so this takes most of a decade's rows out of the build (`SampleRun`).
public enum SQLSchema {
    /// Raised whenever a table, view or column changes meaning or disappears.
    public static let version = 4

    /// Local ISO text with the UTC offset (`2025-06-01T07:30:00+02:00`) of an epoch column and its
    /// offset column, computed by SQLite when the view is read.
    static func localISO(_ epoch: String, _ offset: String) -> String {
        "strftime('%Y-%m-%dT%H:%M:%S', \(epoch) + \(offset), 'unixepoch') || CASE WHEN \(offset) < 0 THEN '-' ELSE '+' END"
            + " || printf('%02d:%02d', abs(\(offset)) / 3600, abs(\(offset)) % 3600 / 60)"
    }

    static let statements: [String] = [
        """
        CREATE TABLE meta (
            schema_version INTEGER NOT NULL,
            archive_id TEXT NOT NULL,
            time_zone TEXT,
            since TEXT,
            until TEXT,
            exported_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE days (
            day TEXT PRIMARY KEY,
            uploaded_at TEXT NOT NULL,
            time_zone TEXT,
            events INTEGER NOT NULL,
            exported_at TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE series (
            series_id INTEGER PRIMARY KEY,
            metric TEXT NOT NULL,
            kind TEXT NOT NULL,
            bucket TEXT,
            unit TEXT,
            source TEXT
        )
        """,
        "CREATE INDEX series_metric ON series (metric)",
        """
        CREATE TABLE event_rows (
            series_id INTEGER NOT NULL,
            day TEXT NOT NULL,
            seq INTEGER NOT NULL,
            start_epoch INTEGER NOT NULL,
            end_epoch INTEGER NOT NULL,
            start_offset INTEGER NOT NULL,
            end_offset INTEGER NOT NULL,
            value REAL,
            stage TEXT,
            activity TEXT,
            duration REAL,
            PRIMARY KEY (series_id, day, seq)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE readings (
            day TEXT NOT NULL,
            metric TEXT NOT NULL,
            start_time TEXT GENERATED ALWAYS AS (\(localISO("start_epoch", "start_offset"))) VIRTUAL,
            value REAL NOT NULL,
            unit TEXT,
            source TEXT,
            start_epoch INTEGER NOT NULL,
            end_epoch INTEGER NOT NULL,
            start_offset INTEGER NOT NULL,
            end_offset INTEGER NOT NULL
        )
        """,
        "CREATE INDEX readings_metric ON readings (metric, day)",
        """
        CREATE TABLE series_days (
            day TEXT NOT NULL,
            series_id INTEGER NOT NULL,
            events INTEGER NOT NULL,
            PRIMARY KEY (day, series_id)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE sample_runs (
            series_id INTEGER NOT NULL,
            day TEXT NOT NULL,
            utc_offset INTEGER NOT NULL,
            events TEXT NOT NULL,
            PRIMARY KEY (series_id, day)
        ) WITHOUT ROWID
        """,
        // Every event in UTC, one row each: the narrow rows and the unrolled sample runs. Its own
        // view, so the union is SQLite's to run: DuckDB's sqlite scanner binds a view it can read
        // itself, and otherwise sends the view's SQL to SQLite as its own parser writes it again,
        // which wraps each arm of a UNION in parentheses SQLite refuses. `likely(1)` (SQLite's
        // planner hint, true) keeps DuckDB from binding this one itself: its own json_each over the
        // scanned tables took 20 GB for a year; refused, it reads `events` through SQLite instead.
        """
        CREATE VIEW events_utc AS
            SELECT r.day AS day, s.metric AS metric, s.kind AS kind, s.bucket AS bucket, r.start_epoch AS start_epoch,
                r.end_epoch AS end_epoch, r.start_offset AS start_offset, r.end_offset AS end_offset, r.value AS value,
                s.unit AS unit, s.source AS source, r.stage AS stage, r.activity AS activity, r.duration AS duration
            FROM event_rows r JOIN series s ON s.series_id = r.series_id WHERE likely(1)
            UNION ALL
            SELECT day, metric, 'record', NULL, start_epoch, end_epoch, start_offset, end_offset, value, unit, source, NULL, NULL, NULL
            FROM readings WHERE likely(1)
            UNION ALL
            SELECT p.day, s.metric, s.kind, s.bucket, \(SampleRun.column(0)),
                coalesce(\(SampleRun.column(2)), \(SampleRun.column(0))),
                coalesce(\(SampleRun.column(3)), p.utc_offset), coalesce(\(SampleRun.column(4)), p.utc_offset),
                \(SampleRun.column(1)), s.unit, s.source, NULL, NULL, NULL
            FROM sample_runs p JOIN series s ON s.series_id = p.series_id, json_each(p.events) e WHERE likely(1)
        """,
        """
        CREATE VIEW events AS SELECT day, metric, kind, bucket,
            \(localISO("start_epoch", "start_offset")) AS start_time,
            \(localISO("end_epoch", "end_offset")) AS end_time,
            start_epoch, end_epoch, value, unit, source, stage, activity, duration
        FROM events_utc
        """,
        """
        CREATE TABLE daily (
            day TEXT NOT NULL,
            metric TEXT NOT NULL,
            kind TEXT NOT NULL,
            value REAL,
            unit TEXT,
            min REAL,
            mean REAL,
            max REAL,
            PRIMARY KEY (metric, day)
        )
        """,
        "CREATE INDEX daily_day ON daily (day)",
        // PulsHealth's name for the same thing: one de-duplicated value per metric and day.
        "CREATE VIEW metric_daily AS SELECT day, metric, value, unit FROM daily",
        """
        CREATE TABLE sleep_nights (
            night TEXT PRIMARY KEY,
            start_time TEXT NOT NULL,
            end_time TEXT NOT NULL,
            start_epoch INTEGER NOT NULL,
            end_epoch INTEGER NOT NULL,
            asleep_hours REAL,
            in_bed_hours REAL,
            awake_hours REAL,
            asleep_unspecified_hours REAL,
            asleep_core_hours REAL,
            asleep_deep_hours REAL,
            asleep_rem_hours REAL,
            unknown_hours REAL,
            segments INTEGER NOT NULL,
            naps INTEGER NOT NULL,
            nap_asleep_hours REAL NOT NULL
        )
        """,
        """
        CREATE TABLE workouts (
            start_epoch INTEGER NOT NULL,
            end_epoch INTEGER NOT NULL,
            start_time TEXT NOT NULL,
            end_time TEXT NOT NULL,
            day TEXT NOT NULL,
            activity TEXT NOT NULL,
            minutes REAL NOT NULL,
            source TEXT,
            distance_meters REAL,
            active_energy_kcal REAL,
            average_heart_rate REAL,
            maximum_heart_rate REAL,
            route_fixes INTEGER
        )
        """,
        "CREATE INDEX workouts_day ON workouts (day)",
        "CREATE INDEX workouts_activity ON workouts (activity, day)",
        "CREATE INDEX workouts_start ON workouts (start_epoch)",
        """
        CREATE TABLE routes (
            workout_start INTEGER NOT NULL,
            epoch INTEGER NOT NULL,
            ordinal INTEGER NOT NULL,
            time TEXT NOT NULL,
            day TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            altitude REAL,
            speed REAL,
            course REAL,
            horizontal_accuracy REAL,
            vertical_accuracy REAL,
            source TEXT,
            PRIMARY KEY (workout_start, epoch, ordinal)
        )
        """,
        "CREATE INDEX routes_day ON routes (day)",
        """
        CREATE TABLE metrics (
            metric TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            unit TEXT,
            name TEXT NOT NULL,
            first_day TEXT NOT NULL,
            last_day TEXT NOT NULL,
            days INTEGER NOT NULL,
            events INTEGER NOT NULL,
            note TEXT
        )
        """,
    ]

    /// Creates every table, index and view in an empty database.
    static func create(on db: SQLiteConnection) throws(SQLiteError) {
        for statement in statements { try db.execute(statement) }
    }

    /// What the `kind` columns say: `total` for de-duplicated sums, `record` for everything else.
    static func kindName(_ kind: DayEvent.Kind) -> String { kind == .total ? "total" : "record" }
}
