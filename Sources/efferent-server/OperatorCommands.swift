import EfferentCommandLine
import EfferentCore
import EfferentHTTP
import EfferentServer
import Foundation


struct Invite: Subcommand {
    static let spec = CommandSpec(
        name: "invite",
        abstract: "Print a one-time invite code that lets one writer create an archive.",
        discussion: "Only a hash of the code is stored; the code is shown once. The service need not be stopped.",
        options: StoreChoice.options + [.init("expires", value: "DURATION", help: "How long the code stays valid: 30m, 12h, 7d.", default: "7d")])

    let store: StoreChoice
    let seconds: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        store = try StoreChoice(arguments)
        let text = arguments.string("expires", default: "7d")
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0,
              let scale = ["m": 60, "h": 3600, "d": 86_400][String(unit)] else {
            throw UsageError("--expires takes a whole number followed by m, h or d, like 7d.")
        }
        seconds = n * scale
    }

    func run() throws -> Int32 {
        let store = try self.store.open(sqliteReaders: 1)
        let code = Invites.newCode()
        let now = Date()
        let expires = now.addingTimeInterval(TimeInterval(seconds))
        try store.addInvite(hash: Invites.hash(code), expires: expires, now: now)
        print(code)
        FileHandle.standardError.write(Data("valid until \(ISO8601DateFormatter().string(from: expires)); give it to one writer: efferent init --server URL --invite \(code)\n".utf8))
        return 0
    }
}

struct Backup: Subcommand {
    static let spec = CommandSpec(
        name: "backup",
        abstract: "Copy the archive into one SQLite file, consistently, while the service runs.",
        discussion: """
        The copy is the archive as it stood at one moment, made in time bounded by its size however busy the \
        service is; it is checked before it gets the name asked for, so a killed backup never leaves a file \
        under that name. A PostgreSQL store is backed up with pg_dump instead (documents/operations.md).
        """,
        options: StoreChoice.options + [.init("to", value: "FILE", help: "The backup file to create (must not exist).")])

    let data: String
    let destination: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard case let .sqlite(directory) = try StoreChoice(arguments) else {
            throw UsageError("a PostgreSQL store is backed up with pg_dump, which copies it consistently while the service runs: "
                             + "pg_dump --format=custom --file=efferent.dump URL (see documents/operations.md).")
        }
        data = directory
        destination = try arguments.required("to")
        if FileManager.default.fileExists(atPath: destination) {
            throw UsageError("\(destination) already exists; name a new file so no backup is overwritten.")
        }
        try StoreChoice.sqlite(directory: directory).requireExisting()
    }

    func run() throws -> Int32 {
        let report = try SQLiteBackup.copy(directory: data, to: destination)
        print("backed up to \(report.path): \(report.bytes) bytes in " + String(format: "%.1f s", report.seconds)
              + "; restore by stopping the service and copying it to \(data)/\(SQLiteArchiveStore.fileName)")
        return 0
    }
}

struct Stats: Subcommand {
    static let spec = CommandSpec(name: "stats", abstract: "Show what the service holds: archives, days, bytes, edits.",
                                  options: StoreChoice.options)

    let store: StoreChoice

    init(_ arguments: ParsedArguments) throws(UsageError) {
        store = try StoreChoice(arguments)
        try store.requireExisting()
    }

    func run() throws -> Int32 {
        let stats = try store.open(sqliteReaders: 1).serviceStats()
        print("archives       \(stats.buckets)")
        print("days           \(stats.days)")
        print("stored bytes   \(stats.storedBytes)")
        print("pending edits  \(stats.pendingEdits)")
        print("bytes taken    \(stats.taken) (ever handed over; counts against --max-service-bytes)")
        return 0
    }
}

struct List: Subcommand {
    static let spec = CommandSpec(name: "list", abstract: "List every archive: id, days, bytes, first and last day, last upload, pending edits.",
                                  options: StoreChoice.options)

    let store: StoreChoice

    init(_ arguments: ParsedArguments) throws(UsageError) {
        store = try StoreChoice(arguments)
        try store.requireExisting()
    }

    func run() throws -> Int32 {
        let archives = try store.open(sqliteReaders: 1).archives()
        guard !archives.isEmpty else {
            FileHandle.standardError.write(Data("no archives yet: give a writer a code from efferent-server invite.\n".utf8))
            return 0
        }
        let header = ["archive", "days", "bytes", "first", "last", "last upload", "pending edits"]
        let rows = archives.map { archive in
            [archive.id.rawValue, String(archive.days), String(archive.bytes), archive.firstDay?.description ?? "-",
             archive.lastDay?.description ?? "-", archive.lastUpload.map(ISOTime.milliseconds) ?? "-", String(archive.pendingEdits)]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  "))
        }
        return 0
    }
}

struct RemoveBucket: Subcommand {
    static let spec = CommandSpec(
        name: "remove-bucket",
        abstract: "Delete one archive and everything in it (the service itself has no delete route).",
        discussion: "On a terminal it asks before deleting; elsewhere (a script) it deletes only with --yes.",
        options: StoreChoice.options + [.flag("yes", help: "Delete without asking.")],
        arguments: [.init("ID", help: "The 26-character bucket id (efferent-server list shows them).")])

    let store: StoreChoice
    let bucket: BucketID
    let confirmed: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        store = try StoreChoice(arguments)
        guard let text = arguments.argument(0), let id = try? BucketID(text) else {
            throw UsageError("a bucket id is 26 characters of a–z and 2–7; efferent-server list shows them.")
        }
        bucket = id
        confirmed = arguments.flag("yes")
        if !confirmed && isatty(STDIN_FILENO) != 1 {
            throw UsageError("remove-bucket deletes \(id) and every day in it for good; add --yes to do it without a terminal to ask on.")
        }
        try store.requireExisting()
    }

    func run() throws -> Int32 {
        let store = try self.store.open(sqliteReaders: 1)
        guard let archive = try store.archives().first(where: { $0.id == bucket }) else {
            FileHandle.standardError.write(Data("error: there is no archive \(bucket) here; efferent-server list shows those that are.\n".utf8))
            return 1
        }
        if !confirmed {
            FileHandle.standardError.write(Data("delete archive \(bucket) with \(archive.days) days (\(archive.bytes) bytes) and its edits for good? Type the first 4 characters of its id to confirm: ".utf8))
            guard let answer = readLine(), answer.trimmingCharacters(in: .whitespaces) == String(bucket.rawValue.prefix(4)) else {
                FileHandle.standardError.write(Data("nothing deleted.\n".utf8))
                return 1
            }
        }
        guard try store.removeBucket(bucket) else {
            FileHandle.standardError.write(Data("error: there is no archive \(bucket) here; efferent-server list shows those that are.\n".utf8))
            return 1
        }
        print("removed \(bucket): \(archive.days) days, \(archive.bytes) bytes")
        return 0
    }
}

struct MigrateStore: Subcommand {
    static let spec = CommandSpec(
        name: "migrate-store",
        abstract: "Copy a whole SQLite archive store into an empty PostgreSQL database, keeping every upload time.",
        discussion: """
        Stop the SQLite service first: what it accepts after the copy starts is not copied. The copy is one \
        PostgreSQL transaction, checked by counting both sides before it commits; the SQLite archive is left as it was.
        """,
        options: [.init("from", value: "sqlite:DIR", help: "The SQLite data directory to copy."),
                  .init("to", value: "postgres:URL", help: "The empty PostgreSQL database to fill (postgres:postgresql://…).")])

    let source: String
    let target: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let from = try arguments.required("from"), to = try arguments.required("to")
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else {
            throw UsageError("--from takes sqlite:DIR, the data directory of the SQLite service, like sqlite:./efferent-data.")
        }
        guard to.hasPrefix("postgres:postgres://") || to.hasPrefix("postgres:postgresql://") else {
            throw UsageError("--to takes postgres:URL, like postgres:postgresql://efferent@db.example.org/efferent.")
        }
        source = String(from.dropFirst("sqlite:".count))
        target = String(to.dropFirst("postgres:".count))
        let file = (source as NSString).appendingPathComponent(SQLiteArchiveStore.fileName)
        guard FileManager.default.fileExists(atPath: file) else {
            throw UsageError("there is no SQLite archive at \(file); --from names the directory given to serve --data.")
        }
    }

    func run() throws -> Int32 {
        let sqlite = try SQLiteArchiveStore(directory: source, readers: 1)
        let postgres = try PostgresArchiveStore(url: target, connections: 1)
        let started = Date()
        let summary = try StoreMigration.copy(from: sqlite, to: postgres) { progress in
            FileHandle.standardError.write(Data("\r\(progress.days) days copied".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        print("copied \(summary) from \(sqlite.path) to \(postgres.destination) in "
              + String(format: "%.1f s", Date().timeIntervalSince(started)) + "; upload times kept")
        print("next: serve with --postgres URL (or EFFERENT_POSTGRES_URL); keep \(source) until the new service has answered its writers and readers")
        return 0
    }
}
