import EfferentClient
import EfferentCore
import EfferentSQLite
import EfferentSystem
import Foundation

/// The mirror as a plaintext SQLite file with the schema of `SQLSchema` (documents/sql.md): what
/// `efferent export sqlite` writes and `efferent sql` keeps beside the mirror.
///
/// The first run builds the file whole in a file of its own and puts it in place with a rename,
/// so a run that fails or is killed leaves the old file (or none). Later runs are incremental:
/// the file keeps each day's upload time, and only the days whose upload time changed since (or
/// that appeared or went) are rewritten, in one transaction, with the answers' rows of the days
/// around them. New files are created 0600; an existing file keeps the mode its owner gave it.
public struct SQLExport {
    /// What a run did.
    public struct Report: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case built, updated, upToDate }
        public let kind: Kind
        /// Days the file holds now.
        public let days: Int
        /// Days whose rows this run wrote or removed.
        public let daysChanged: Int
        /// Events this run wrote.
        public let events: Int
    }

    public let mirror: Mirror
    public let path: String
    public let archiveID: String
    public let timeZone: String?
    public let since: CalendarDay?
    public let until: CalendarDay?

    /// Days one window reads at a time. Two windows are in memory at once (`Lookahead`), and days
    /// of long workouts hold tens of thousands of route fields each, so windows are short: the
    /// days read twice at their edges cost less than the memory. (Tests make it small, so windows
    /// meet inside their archives.)
    var windowDays = 8

    public init(mirror: Mirror, path: String, archiveID: String, timeZone: String?, since: CalendarDay? = nil, until: CalendarDay? = nil) {
        self.mirror = mirror
        self.path = path
        self.archiveID = archiveID
        self.timeZone = timeZone
        self.since = since
        self.until = until
    }

    public init(context: ReaderContext, path: String, since: CalendarDay? = nil, until: CalendarDay? = nil) {
        self.init(mirror: context.mirror, path: path, archiveID: context.settings.bucket.rawValue, timeZone: context.settings.timeZone,
                  since: since, until: until)
    }

    /// Builds or updates the file.
    public func run(now: Date = Date()) throws -> Report {
        let uploaded = mirror.uploaded
        let wanted = uploaded.filter { entry in (since.map { entry.key >= $0 } ?? true) && (until.map { entry.key <= $0 } ?? true) }
        let stamp = ISO8601DateFormatter().string(from: now)
        if FileManager.default.fileExists(atPath: path) {
            let db: SQLiteConnection
            do { db = try SQLiteConnection(path: path, create: false) } catch {
                throw SQLExportError.notAnExport(path)
            }
            switch try inspect(db) {
            case .rebuild: break
            case .update:
                if let report = try update(db, uploaded: uploaded, wanted: wanted, stamp: stamp) { return report }
            }
        }
        return try build(uploaded: uploaded, wanted: wanted, stamp: stamp)
    }

    private enum Plan { case update, rebuild }

    /// Whether the file at `path` is this archive's export of the same days in this schema.
    private func inspect(_ db: SQLiteConnection) throws -> Plan {
        let meta: (version: Int64, archive: String, since: String?, until: String?)?
        do {
            meta = try db.statement("SELECT schema_version, archive_id, since, until FROM meta").first {
                ($0.int64(0), $0.text(1), $0.optionalText(2), $0.optionalText(3))
            }
        } catch {
            throw SQLExportError.notAnExport(path)
        }
        guard let meta else { throw SQLExportError.notAnExport(path) }
        guard meta.archive == archiveID else { throw SQLExportError.otherArchive(path, archive: meta.archive) }
        let sameDays = meta.since == since?.description && meta.until == until?.description
        return meta.version == Int64(SQLSchema.version) && sameDays ? .update : .rebuild
    }

    /// The local days the answers' rows cover: from the first day exported to the last.
    private func span(_ wanted: [CalendarDay: String]) -> DayRange? {
        guard let first = wanted.keys.min(), let last = wanted.keys.max() else { return nil }
        return try? DayRange(since: first, until: last)
    }

    // MARK: Building whole

    private func build(uploaded: [CalendarDay: String], wanted: [CalendarDay: String], stamp: String) throws -> Report {
        let partial = path + ".efferent-building-" + UUID().uuidString.prefix(8)
        defer { for suffix in ["", "-journal"] { FileDurability.remove(partial + suffix) } }
        var written = 0
        do {
            let db: SQLiteConnection
            do { db = try SQLiteConnection(path: partial) } catch {
                throw SQLExportError.cannotWrite(path, reason: error.message)
            }
            // Health records in plain text: owner-only before the first row is written, whatever
            // the umask (the command sets 077; a library caller may not have).
            do { try FileMode.set(0o600, on: partial) } catch { throw SQLExportError.cannotWrite(path, reason: error.reason) }
            // A file built aside and renamed into place needs no journal: a failed build is deleted.
            // 8 KiB pages: a fifth less time inserting a decade's events than 4 KiB (measured).
            try db.execute("PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768")
            try SQLSchema.create(on: db)
            written = try db.write {
                let writer = try Writers(db: db)
                if let range = span(wanted) {
                    try writeWindows([range], toWrite: Set(wanted.keys), uploaded: uploaded, writers: writer, stamp: stamp)
                }
                try finish(db, writer, stamp: stamp)
                return writer.events.eventsWritten
            }
        }
        do { try FileDurability.replace(path, with: partial) } catch {
            throw SQLExportError.cannotWrite(path, reason: error.description)
        }
        return Report(kind: .built, days: wanted.count, daysChanged: wanted.count, events: written)
    }

    // MARK: Updating

    /// Rewrites the days that changed in one transaction; nil when so many changed that building
    /// whole is quicker.
    private func update(_ db: SQLiteConnection, uploaded: [CalendarDay: String], wanted: [CalendarDay: String], stamp: String) throws -> Report? {
        try db.execute("PRAGMA cache_size = -32768")
        return try db.write { () throws -> Report? in
            var stored = [CalendarDay: String]()
            for (text, stamp) in try db.statement("SELECT day, uploaded_at FROM days").rows([], { ($0.text(0), $0.text(1)) }) {
                if let day = CalendarDay(text) { stored[day] = stamp }
            }
            let changed = Set(wanted.filter { stored[$0.key] != $0.value }.keys).union(stored.keys.filter { wanted[$0] == nil })
            // A bounded export still rewrites its edges, whose nights read days outside its bounds.
            guard !changed.isEmpty || !boundedEdges(wanted).isEmpty else {
                return Report(kind: .upToDate, days: wanted.count, daysChanged: 0, events: 0)
            }
            if changed.count > 62 && changed.count * 2 > wanted.count { return nil }
            let writer = try Writers(db: db)
            for day in changed.sorted() { try writer.events.remove(day) }
            var affected = boundedEdges(wanted)
            // A day's events feed the answers of the days around it: readings and totals the next
            // day's row, nights and workouts from two days before to the day after.
            for day in changed { for offset in -2...1 { affected.insert(day.adding(days: offset)) } }
            try writer.derived.remove(outside: span(wanted))
            if let span = span(wanted) {
                let runs = Self.runs(of: affected.filter(span.contains).sorted())
                for run in runs { try writer.derived.remove(since: run.since, until: run.until) }
                try writeWindows(runs, toWrite: changed.filter { wanted[$0] != nil }, uploaded: uploaded, writers: writer, stamp: stamp)
            }
            try finish(db, writer, stamp: stamp)
            return Report(kind: .updated, days: wanted.count, daysChanged: changed.count, events: writer.events.eventsWritten)
        }
    }

    /// The first and last two days of a bounded export, whose nights and workouts read the days
    /// just outside its bounds and so are rewritten every run.
    private func boundedEdges(_ wanted: [CalendarDay: String]) -> Set<CalendarDay> {
        guard let span = span(wanted) else { return [] }
        var edges = Set<CalendarDay>()
        if since != nil { edges.formUnion([span.since, span.since.next]) }
        if until != nil { edges.formUnion([span.until.adding(days: -2), span.until.previous, span.until]) }
        return edges.filter(span.contains)
    }

    /// Consecutive runs of `days` (ascending).
    static func runs(of days: [CalendarDay]) -> [DayRange] {
        var runs = [DayRange]()
        var start: CalendarDay?
        var previous: CalendarDay?
        for day in days {
            if let last = previous, day != last.next, let first = start {
                if let run = try? DayRange(since: first, until: last) { runs.append(run) }
                start = nil
            }
            if start == nil { start = day }
            previous = day
        }
        if let first = start, let last = previous, let run = try? DayRange(since: first, until: last) { runs.append(run) }
        return runs
    }

    // MARK: Writing

    /// The two writers of one run.
    private struct Writers {
        let events: EventRowWriter
        let derived: DerivedRowWriter

        init(db: SQLiteConnection) throws {
            events = try EventRowWriter(db: db, clock: LocalClock())
            derived = try DerivedRowWriter(db: db)
        }
    }

    /// What one window writes, made off the writing thread: its days to write events for, in order,
    /// and the answers' rows of its range.
    private struct Prepared: Sendable {
        let days: [(day: ExportWindow.Day, packed: [SampleRun.Encoded?])]
        let rows: DerivedRowWriter.Rows
    }

    /// Writes, window by window over `ranges`, the events of the days in `toWrite` and the
    /// answers' rows of every day of the ranges. The next window is read and its answers computed
    /// (`Lookahead`) while this thread inserts the current one's rows.
    private func writeWindows(_ ranges: [DayRange], toWrite: Set<CalendarDay>, uploaded: [CalendarDay: String],
                              writers: Writers, stamp: String) throws {
        var plan = [DayRange]()
        for range in ranges {
            var start = range.since
            while start <= range.until {
                let end = min(range.until, start.adding(days: windowDays - 1))
                plan.append(try DayRange(since: start, until: end))
                start = end.next
            }
        }
        let mirror = mirror, windows = plan
        let ahead = Lookahead(count: windows.count) { index in
            let range = windows[index]
            let window = try ExportWindow(mirror: mirror, uploaded: uploaded, from: range.since.previous, through: range.until.adding(days: 3))
            let clock = LocalClock()
            let days = try range.days.filter(toWrite.contains).compactMap { window.days[$0] }.map { ($0, try SampleRun.encoded($0, clock: clock)) }
            return Prepared(days: days, rows: try DerivedRowWriter.rows(range, from: window, clock: clock))
        }
        while let prepared = try ahead.next() {
            for (day, packed) in prepared.days { try writers.events.write(day, packed: packed, exportedAt: stamp) }
            try writers.derived.insert(prepared.rows)
        }
    }

    /// The tables every run ends with: `metrics` and `meta`.
    private func finish(_ db: SQLiteConnection, _ writers: Writers, stamp: String) throws {
        try writers.events.dropUnusedSeries()
        try MetricsTable.rebuild(db)
        try db.execute("DELETE FROM meta")
        try db.statement("INSERT INTO meta VALUES (?1, ?2, ?3, ?4, ?5, ?6)").run([
            .integer(Int64(SQLSchema.version)), .text(archiveID), timeZone.map(SQLiteValue.text) ?? .null,
            since.map { .text($0.description) } ?? .null, until.map { .text($0.description) } ?? .null, .text(stamp),
        ])
    }
}

extension SQLExport {
    /// The name of the copy `efferent sql` keeps in the profile, beside the mirror.
    public static let besideMirrorName = "mirror.sqlite"

    /// The copy kept beside `context`'s mirror, the whole mirror in it.
    public static func besideMirror(_ context: ReaderContext) -> SQLExport {
        SQLExport(context: context, path: context.profile.path(besideMirrorName))
    }
}
