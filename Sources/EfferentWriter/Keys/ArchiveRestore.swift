import EfferentClient
import EfferentCore
import Foundation

/// A writer's store rebuilt from the archive's own days, after a kit was installed into an empty
/// profile (`KitInstall`): every day read back (`ArchiveDays`) and stored as the archive holds it
/// (`SourceStore.restore`), one range at a time, so a push afterwards sends nothing, and an
/// export or a phone's history sent again meets what is there (decision A.14) instead of counting
/// twice. A restore cut short leaves its run unfinished (`isUnfinished`); it is begun again from
/// an empty store.
public enum ArchiveRestore {
    /// What a restore found and stored.
    public struct Report: Sendable {
        public let days: Int
        public let records: Int
        public let totals: Int
        public let requests: Int
        public let bytes: Int
        public let sealedToPrevious: Int
    }

    /// Reads every day of the context's archive into its (empty) store.
    public static func run(_ context: WriterContext, reading: ReadingKey, previous: ReadingKey?,
                           progress: ((Int, Int) -> Void)? = nil) async throws -> Report {
        let store = context.store
        guard try store.isEmpty() else { throw ArchiveRestoreError.storeInUse(store.path) }
        let run = try store.beginRestore(source: "archive")
        let days = ArchiveDays(client: try context.client(), reading: reading, previous: previous)
        var stored = 0
        let report = try await days.read(progress: progress) { range in
            stored += try store.restore(range, run: run)
        }
        try store.finishRestore(run: run)
        return Report(days: report.days, records: stored, totals: report.totals, requests: report.requests, bytes: report.bytes,
                      sealedToPrevious: report.sealedToPrevious)
    }

    /// Whether the store at `path` holds a restore that did not finish.
    public static func isUnfinished(_ store: SourceStore) throws -> Bool {
        try store.hasUnfinishedRestore()
    }
}

public enum ArchiveRestoreError: Error, Equatable, CustomStringConvertible {
    case storeInUse(String)

    public var description: String {
        switch self {
        case let .storeInUse(path):
            "\(path) already holds records, and a restore goes only into an empty store; restore into an empty EFFERENT_HOME."
        }
    }
}
