import EfferentSQLite
import EfferentSystem
import Foundation

/// A copy of a SQLite archive store as it stood at one moment, taken while the service writes.
///
/// `VACUUM INTO` reads the whole database in one read transaction and writes a compact copy
/// (https://sqlite.org/lang_vacuum.html#vacuuminto), so it ends in time bounded by the archive's
/// size however often the service commits — the online backup API restarts whenever another
/// connection writes, and under a steady trickle of uploads never finished. The copy goes to a
/// temporary name beside the destination, is checked with `PRAGMA integrity_check`, flushed, and
/// only then given the destination's name, which must not exist: a killed backup leaves at most a
/// `*.partial-*` file and never a file under the name asked for.
public enum SQLiteBackup {
    public struct Report: Sendable {
        public let path: String
        public let bytes: Int
        public let seconds: Double
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case noStore(String)
        case destinationExists(String)
        case damaged(String)

        public var description: String {
            switch self {
            case let .noStore(directory):
                "There is no archive store in \(directory) (\(SQLiteArchiveStore.fileName)); --data names the directory given to serve --data."
            case let .destinationExists(path): "\(path) already exists; name a new file so no backup is overwritten."
            case let .damaged(detail): "The copy did not pass SQLite's integrity check (\(detail)); nothing was written under the name asked for."
            }
        }
    }

    /// Copies the store in `directory` to the new file `destination`.
    public static func copy(directory: String, to destination: String) throws -> Report {
        guard SQLiteArchiveStore.exists(in: directory) else { throw Failure.noStore(directory) }
        guard !FileManager.default.fileExists(atPath: destination) else { throw Failure.destinationExists(destination) }
        let started = DispatchTime.now().uptimeNanoseconds
        let partial = destination + ".partial-" + UUID().uuidString.prefix(8).lowercased()
        do {
            try snapshot(of: (directory as NSString).appendingPathComponent(SQLiteArchiveStore.fileName), into: partial)
            let verdict = try integrity(of: partial)
            guard verdict == ["ok"] else { throw Failure.damaged(verdict.prefix(3).joined(separator: "; ")) }
            try FileDurability.synchronize(partial)
            try FileDurability.publish(partial, as: destination)
        } catch let error as FileDurabilityError where error.isExisting {
            try? FileManager.default.removeItem(atPath: partial)
            throw Failure.destinationExists(destination)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        return Report(path: destination, bytes: bytes, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }

    /// `VACUUM INTO` from a connection of its own, closed when it returns.
    private static func snapshot(of path: String, into partial: String) throws {
        // Read-only: the copy never writes the live archive.
        let source = try SQLiteConnection(path: path, readOnly: true)
        try source.statement("VACUUM INTO ?").run([.text(partial)])
    }

    /// What `PRAGMA integrity_check` says of the file: `["ok"]` when it is whole.
    private static func integrity(of path: String) throws -> [String] {
        let copy = try SQLiteConnection(path: path, readOnly: true)
        return try copy.statement("PRAGMA integrity_check").rows { $0.text(0) }
    }
}
