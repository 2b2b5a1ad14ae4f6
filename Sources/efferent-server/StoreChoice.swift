import EfferentCommandLine
import EfferentServer
import Foundation

/// Where an `efferent-server` command finds the archives: a SQLite file under `--data` (the
/// default), or the PostgreSQL database named by `--postgres` or `EFFERENT_POSTGRES_URL`.
enum StoreChoice {
    case sqlite(directory: String)
    case postgres(url: String, connections: Int)

    static let options: [CommandSpec.Option] = [
        .init("data", value: "DIR", help: "Directory holding the SQLite archive database.", default: "./efferent-data"),
        .init("postgres", value: "URL", help: "Keep archives in PostgreSQL instead (postgresql://user@host/db); or set EFFERENT_POSTGRES_URL."),
    ]

    static let poolOption = CommandSpec.Option("postgres-connections", value: "N",
                                               help: "PostgreSQL connections this process keeps open at most.", default: "10")

    /// `--postgres` and `--data` on the command line win over `EFFERENT_POSTGRES_URL`; giving both
    /// flags is a mistake worth a sentence.
    init(_ arguments: ParsedArguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) {
        let data = arguments.string("data")
        if arguments.string("postgres") != nil && data != nil {
            throw UsageError("--data names a SQLite directory and --postgres a PostgreSQL database; give one of them.")
        }
        let fromEnvironment = data == nil ? environment["EFFERENT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } : nil
        guard let url = arguments.string("postgres") ?? fromEnvironment else {
            self = .sqlite(directory: data ?? "./efferent-data")
            return
        }
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            throw UsageError("--postgres (or EFFERENT_POSTGRES_URL) takes a URL that starts with postgresql://, like postgresql://efferent@db.example.org/efferent.")
        }
        self = .postgres(url: url, connections: try arguments.integer("postgres-connections", default: 10, range: 1...1000))
    }

    /// Refuses a SQLite directory that holds no archive store, so a forgotten `--data` reports
    /// nothing rather than creating an empty store and reporting zeros.
    func requireExisting() throws(UsageError) {
        guard case let .sqlite(directory) = self, !SQLiteArchiveStore.exists(in: directory) else { return }
        throw UsageError("there is no archive store in \(directory) (\(SQLiteArchiveStore.fileName)); "
                         + "--data names the directory given to serve --data.")
    }

    /// Opens the store, applying pending migrations.
    func open(sqliteReaders: Int = 16) throws -> any ArchiveStore {
        switch self {
        case let .sqlite(directory): try SQLiteArchiveStore(directory: directory, readers: sqliteReaders)
        case let .postgres(url, connections): try PostgresArchiveStore(url: url, connections: connections)
        }
    }

    /// What a log line may say about the store: a path, or `host:port/database` (never a user or
    /// password).
    static func describe(_ store: any ArchiveStore) -> (key: String, value: String) {
        switch store {
        case let sqlite as SQLiteArchiveStore: ("data", sqlite.path)
        case let postgres as PostgresArchiveStore: ("postgres", postgres.destination)
        default: ("store", String(describing: type(of: store)))
        }
    }
}
