import EfferentSQLite
import EfferentPostgres
import EfferentCore
import Foundation

/// Moves a whole archive from the SQLite store to an empty PostgreSQL store
/// (`efferent-server migrate-store`): every bucket with its keys, tally and creation time, every
/// day with its upload time, every edit (waiting or answered), every invite, and the service
/// tally. Readers' mirrors compare upload times, so keeping them means no mirror re-downloads.
///
/// The source is read in one snapshot (opening it may bring its schema up to date, nothing more);
/// the target is locked and written in one transaction, so a failure part-way leaves it as empty
/// as it was.
public enum StoreMigration {
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        public var buckets = 0
        public var days = 0
        public var dayBytes: Int64 = 0
        public var edits = 0
        public var invites = 0
        public var links = 0
        public var linkFiles = 0
        public var kits = 0
        public var taken: Int64 = 0

        public var description: String {
            func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
            return "\(count(buckets, "archive")), \(count(days, "day")) (\(dayBytes) bytes), \(count(edits, "edit")), "
                + "\(count(invites, "invite")), \(count(links, "shared link")) (\(count(linkFiles, "file"))), \(count(kits, "recovery record")), \(taken) bytes taken"
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case targetNotEmpty
        case mismatch(source: ServiceStats, target: ServiceStats)

        public var description: String {
            switch self {
            case .targetNotEmpty:
                "The PostgreSQL database already holds archives or invites; migrate-store only fills an empty one, so nothing was copied."
            case let .mismatch(source, target):
                "After copying, the two stores disagree (SQLite \(source), PostgreSQL \(target)); the copy was rolled back."
            }
        }
    }

    /// Days are sent at most this many, and this many bytes, to a statement (PostgreSQL takes at
    /// most 1 GiB in one message; a day may be 1 MiB).
    static let dayBatch = 256
    static let batchBytes = 64 << 20

    public static func copy(from source: SQLiteArchiveStore, to target: PostgresArchiveStore,
                            progress: (Summary) -> Void = { _ in }) throws -> Summary {
        try source.read { sqlite in
            try target.write { pg in
                // No service process may claim, upload or count anything here until the copy
                // commits: the empty check and the tally below must stay true.
                try pg.execute("LOCK TABLE bucket, day, edit, invite, tally, link, link_file, link_access, kit IN EXCLUSIVE MODE")
                let occupied = try pg.query("""
                    SELECT (SELECT count(*) FROM bucket) + (SELECT count(*) FROM invite) + (SELECT count(*) FROM day)
                         + (SELECT count(*) FROM edit) + (SELECT bytes FROM tally WHERE name = 'service') + (SELECT count(*) FROM link)
                    """).int64(0, 0)
                guard occupied == 0 else { throw Failure.targetNotEmpty }
                var summary = Summary()

                _ = try sqlite.statement("SELECT id, writer, reader, editor, taken, created FROM bucket").rows { row in
                    _ = try pg.query("""
                        INSERT INTO bucket (id, writer, reader, editor, taken, created)
                        VALUES ($1::text, $2::bytea, $3::bytea, $4::bytea, $5::int8, $6::int8)
                        """, [.text(row.text(0)), .bytes(row.blob(1)), optional(row.optionalBlob(2)), optional(row.optionalBlob(3)),
                              .integer(row.int64(4)), .integer(row.int64(5))])
                    summary.buckets += 1
                }

                let days = try sqlite.statement("SELECT bucket, day, uploaded, sealed FROM day ORDER BY bucket, day")
                var batch: (buckets: [String], days: [String], uploaded: [Int64], sealed: [ArraySlice<UInt8>]) = ([], [], [], [])
                var pendingBytes = 0
                func flush() throws {
                    guard !batch.days.isEmpty else { return }
                    _ = try pg.query("""
                        INSERT INTO day (bucket, day, bytes, uploaded, sealed)
                        SELECT b, d, octet_length(s), u, s FROM unnest($1::text[], $2::text[], $3::int8[], $4::bytea[]) AS x(b, d, u, s)
                        """, [.textArray(batch.buckets), .textArray(batch.days), .integerArray(batch.uploaded), .bytesArray(batch.sealed)])
                    batch = ([], [], [], [])
                    pendingBytes = 0
                    progress(summary)
                }
                while try days.step() {
                    batch.buckets.append(days.text(0))
                    batch.days.append(days.text(1))
                    batch.uploaded.append(days.int64(2))
                    let sealed = days.blob(3)
                    batch.sealed.append(sealed[...])
                    summary.days += 1
                    summary.dayBytes += Int64(sealed.count)
                    pendingBytes += sealed.count
                    if batch.days.count == dayBatch || pendingBytes >= Self.batchBytes { try flush() }
                }
                try flush()

                _ = try sqlite.statement("""
                    SELECT bucket, name, bytes, at, editor, signature, timestamp, answered, applied, failed, outcome, sealed FROM edit
                    """).rows { row in
                    _ = try pg.query("""
                        INSERT INTO edit (bucket, name, bytes, at, editor, signature, "timestamp", answered, applied, failed, outcome, sealed)
                        VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::bytea, $6::bytea, $7::int8, $8::int8, $9::int8, $10::int8,
                                $11::bytea, $12::bytea)
                        """, [.text(row.text(0)), .text(row.text(1)), .integer(row.int64(2)), .integer(row.int64(3)), .bytes(row.blob(4)),
                              .bytes(row.blob(5)), .integer(row.int64(6)), optional(row, 7), optional(row, 8), optional(row, 9),
                              optional(row.optionalBlob(10)), optional(row.optionalBlob(11))])
                    summary.edits += 1
                }

                _ = try sqlite.statement("SELECT hash, created, expires, used FROM invite").rows { row in
                    _ = try pg.query("INSERT INTO invite (hash, created, expires, used) VALUES ($1::bytea, $2::int8, $3::int8, $4::int8)",
                                     [.bytes(row.blob(0)), .integer(row.int64(1)), .integer(row.int64(2)), optional(row, 3)])
                    summary.invites += 1
                }

                // Shared links (decision A.15), their files and who opened them; a file address a
                // manifest handed out lapses within the hour, so none is carried over.
                _ = try sqlite.statement("""
                    SELECT id, bucket, created, expires, long_term, passcode, failures, version, files, bytes, published, opened, revoked, locked, cleared
                    FROM link
                    """).rows { row in
                    _ = try pg.query("""
                        INSERT INTO link (id, bucket, created, expires, long_term, passcode, failures, version, files, bytes, published, opened,
                                          revoked, locked, cleared)
                        VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::int8 <> 0, $6::text, $7::int8, $8::int8, $9::int8, $10::int8, $11::int8,
                                $12::int8, $13::int8, $14::int8, $15::int8)
                        """, [.text(row.text(0)), .text(row.text(1)), .integer(row.int64(2)), .integer(row.int64(3)), .integer(row.int64(4)),
                              row.optionalText(5).map(PostgresValue.text) ?? .null, .integer(row.int64(6)), optional(row, 7), .integer(row.int64(8)),
                              .integer(row.int64(9)), optional(row, 10), .integer(row.int64(11)), optional(row, 12), optional(row, 13), optional(row, 14)])
                    summary.links += 1
                }
                _ = try sqlite.statement("SELECT link, version, n, bytes, uploaded, jwe FROM link_file").rows { row in
                    _ = try pg.query("""
                        INSERT INTO link_file (link, version, n, bytes, uploaded, jwe) VALUES ($1::text, $2::int8, $3::int8, $4::int8, $5::int8, $6::bytea)
                        """, [.text(row.text(0)), .integer(row.int64(1)), .integer(row.int64(2)), .integer(row.int64(3)), .integer(row.int64(4)),
                              .bytes(row.blob(5))])
                    summary.linkFiles += 1
                }
                _ = try sqlite.statement("SELECT link, at, recipient FROM link_access").rows { row in
                    _ = try pg.query("INSERT INTO link_access (link, at, recipient) VALUES ($1::text, $2::int8, $3::text)",
                                     [.text(row.text(0)), .integer(row.int64(1)), .text(row.text(2))])
                }
                _ = try sqlite.statement("SELECT locator, bucket, bytes, at, sealed FROM kit").rows { row in
                    _ = try pg.query("INSERT INTO kit (locator, bucket, bytes, at, sealed) VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::bytea)",
                                     [.text(row.text(0)), .text(row.text(1)), .integer(row.int64(2)), .integer(row.int64(3)), .bytes(row.blob(4))])
                    summary.kits += 1
                }

                summary.taken = try sqlite.statement("SELECT bytes FROM tally WHERE name = 'service'").first { $0.int64(0) } ?? 0
                _ = try pg.query("UPDATE tally SET bytes = $1::int8 WHERE name = 'service'", [.integer(summary.taken)])

                // The same counts on both sides, or nothing commits.
                let before = try SQLiteArchiveStore.serviceStats(sqlite)
                let after = try PostgresArchiveStore.serviceStats(pg)
                let copied = try pg.query("""
                    SELECT (SELECT count(*) FROM edit), (SELECT count(*) FROM invite), (SELECT count(*) FROM link), (SELECT count(*) FROM link_file),
                           (SELECT count(*) FROM kit)
                    """)
                guard before == after, copied.int64(0, 0) == Int64(summary.edits), copied.int64(0, 1) == Int64(summary.invites),
                      copied.int64(0, 2) == Int64(summary.links), copied.int64(0, 3) == Int64(summary.linkFiles),
                      copied.int64(0, 4) == Int64(summary.kits) else {
                    throw Failure.mismatch(source: before, target: after)
                }
                return summary
            }
        }
    }

    private static func optional(_ bytes: [UInt8]?) -> PostgresValue { bytes.map { .bytes($0) } ?? .null }
    private static func optional(_ row: SQLiteStatement, _ column: Int32) -> PostgresValue { row.isNull(column) ? .null : .integer(row.int64(column)) }
}
