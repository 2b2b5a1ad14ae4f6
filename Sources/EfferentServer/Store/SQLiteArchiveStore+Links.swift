import EfferentCore
import EfferentSQLite
import EfferentSystem
import Foundation

/// Shared links in the SQLite file, beside the archives (schema migration 2). The writer
/// connection deletes with `secure_delete` on (see `open`), and a sweep that deleted files
/// truncates the write-ahead log afterwards, so a link's ciphertext leaves the folder's files when
/// it ends, not just the tables (https://sqlite.org/pragma.html#pragma_secure_delete,
/// https://sqlite.org/pragma.html#pragma_wal_checkpoint).
extension SQLiteArchiveStore {
    public func createLink(_ id: LinkID, bucket: BucketID, link: NewLink, now: Date) throws -> CreateLinkResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            if let owner = try db.statement("SELECT bucket FROM link WHERE id = ?").first([.text(id.rawValue)], { $0.text(0) }) {
                return owner == bucket.rawValue ? .exists : .takenByAnother
            }
            guard try Self.bucket(bucket, db)?.reader != nil else { return .noReader }
            let live = Int(try db.statement("SELECT count(*) FROM link WHERE bucket = ? AND cleared IS NULL AND revoked IS NULL AND locked IS NULL AND expires > ?")
                .first([.text(bucket.rawValue), .integer(ms)]) { $0.int64(0) } ?? 0)
            guard live < LinkLimits.maxLiveLinks else { return .tooMany(live) }
            try db.statement("INSERT INTO link (id, bucket, created, expires, long_term, passcode) VALUES (?, ?, ?, ?, ?, ?)")
                .run([.text(id.rawValue), .text(bucket.rawValue), .integer(ms), .integer(link.expires), .integer(link.longTerm ? 1 : 0),
                      link.passcodeHash.map(SQLiteValue.text) ?? .null])
            return .created
        }
    }

    public func storeLinkFile(_ id: LinkID, bucket: BucketID, file: UploadedLinkFile, quota: Quota, now: Date) throws -> StoreLinkFileResult {
        let ms = Self.milliseconds(now)
        return try write(changing: bucket) { db in
            guard let state = try Self.linkState(id, db), state.bucket == bucket, let record = try Self.bucket(bucket, db) else { return .noSuchLink }
            if let end = state.end(now: ms) { return .ended(end) }
            if state.version == file.version { return .published }
            switch try Self.take(file.jwe.count, bucket: record, quota: quota, db) {
            case .bucket: return .bucketFull
            case .service: return .serviceFull
            case nil: break
            }
            try db.statement("""
                INSERT INTO link_file (link, version, n, bytes, uploaded, jwe) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (link, version, n) DO UPDATE SET bytes = excluded.bytes, uploaded = excluded.uploaded, jwe = excluded.jwe
                """).run([.text(id.rawValue), .integer(Int64(file.version)), .integer(Int64(file.index)), .integer(Int64(file.jwe.count)),
                          .integer(ms), .blob(file.jwe)])
            return .stored
        }
    }

    public func publishLink(_ id: LinkID, bucket: BucketID, version: Int, files: Int, now: Date) throws -> PublishLinkResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let state = try Self.linkState(id, db), state.bucket == bucket else { return .noSuchLink }
            if let end = state.end(now: ms) { return .ended(end) }
            if state.version == version {
                let (count, bytes) = try Self.publishedSize(id, version, db)
                return .published(files: count, bytes: bytes)
            }
            if state.version != nil && !state.longTerm { return .final }
            let present = Set(try db.statement("SELECT n FROM link_file WHERE link = ? AND version = ? AND n < ?")
                .rows([.text(id.rawValue), .integer(Int64(version)), .integer(Int64(files))]) { Int($0.int64(0)) })
            if let missing = (0..<files).first(where: { !present.contains($0) }) { return .missing(index: missing) }
            // Whatever else was uploaded goes: older versions, and files of this one past its count.
            try db.statement("DELETE FROM link_file WHERE link = ? AND (version <> ? OR n >= ?)")
                .run([.text(id.rawValue), .integer(Int64(version)), .integer(Int64(files))])
            try db.statement("DELETE FROM link_ticket WHERE link = ? AND version <> ?").run([.text(id.rawValue), .integer(Int64(version))])
            let (count, bytes) = try Self.publishedSize(id, version, db)
            try db.statement("UPDATE link SET version = ?, files = ?, bytes = ?, published = ? WHERE id = ?")
                .run([.integer(Int64(version)), .integer(Int64(count)), .integer(bytes), .integer(ms), .text(id.rawValue)])
            return .published(files: count, bytes: bytes)
        }
    }

    static func publishedSize(_ id: LinkID, _ version: Int, _ db: SQLiteConnection) throws -> (Int, Int64) {
        try db.statement("SELECT count(*), coalesce(sum(bytes), 0) FROM link_file WHERE link = ? AND version = ?")
            .first([.text(id.rawValue), .integer(Int64(version))]) { (Int($0.int64(0)), $0.int64(1)) } ?? (0, 0)
    }

    public func revokeLink(_ id: LinkID, bucket: BucketID, now: Date) throws -> RevokeLinkResult {
        let ms = Self.milliseconds(now)
        let result = try write { db -> RevokeLinkResult in
            guard let state = try Self.linkState(id, db), state.bucket == bucket else { return .noSuchLink }
            if let end = state.ended { return .alreadyEnded(end) }
            try db.statement("UPDATE link SET revoked = ? WHERE id = ?").run([.integer(ms), .text(id.rawValue)])
            try Self.clear(id, at: ms, db)
            return .revoked
        }
        if result == .revoked { truncateLog() }
        return result
    }

    /// Deletes a link's files and tickets and notes when, inside the caller's transaction.
    static func clear(_ id: LinkID, at ms: Int64, _ db: SQLiteConnection) throws {
        try db.statement("DELETE FROM link_file WHERE link = ?").run([.text(id.rawValue)])
        try db.statement("DELETE FROM link_ticket WHERE link = ?").run([.text(id.rawValue)])
        try db.statement("UPDATE link SET cleared = coalesce(cleared, ?) WHERE id = ?").run([.integer(ms), .text(id.rawValue)])
    }

    public func links(of bucket: BucketID) throws -> [LinkSummary] {
        try read { db in
            let accesses = try db.statement("SELECT at, recipient FROM link_access WHERE link = ? ORDER BY at DESC")
            return try db.statement("""
                SELECT id, created, expires, long_term, passcode IS NOT NULL, failures, version, files, bytes, published, opened, revoked, locked
                FROM link WHERE bucket = ? ORDER BY created DESC, id
                """).rows([.text(bucket.rawValue)]) { row in
                let id = try LinkID(row.text(0))
                let expires = row.int64(2)
                return LinkSummary(id: id, created: row.int64(1), expires: expires, longTerm: row.int64(3) != 0, passcode: row.int64(4) != 0,
                                   failures: Int(row.int64(5)), version: row.isNull(6) ? nil : Int(row.int64(6)), files: Int(row.int64(7)),
                                   bytes: row.int64(8), published: row.isNull(9) ? nil : row.int64(9), opened: Int(row.int64(10)),
                                   accesses: try accesses.rows([.text(id.rawValue)]) { LinkAccess(at: $0.int64(0), recipient: $0.text(1)) },
                                   ended: LinkEnd.stored(revoked: row.isNull(11) ? nil : row.int64(11), locked: row.isNull(12) ? nil : row.int64(12)))
            }
        }
    }

    public func linkState(_ id: LinkID) throws -> LinkState? {
        try read { db in try Self.linkState(id, db) }
    }

    static func linkState(_ id: LinkID, _ db: SQLiteConnection) throws -> LinkState? {
        try db.statement("SELECT bucket, expires, long_term, passcode, failures, version, revoked, locked FROM link WHERE id = ?")
            .first([.text(id.rawValue)]) { row in
                LinkState(bucket: try BucketID(row.text(0)), expires: row.int64(1), longTerm: row.int64(2) != 0, passcodeHash: row.optionalText(3),
                          failures: Int(row.int64(4)), version: row.isNull(5) ? nil : Int(row.int64(5)),
                          ended: LinkEnd.stored(revoked: row.isNull(6) ? nil : row.int64(6), locked: row.isNull(7) ? nil : row.int64(7)))
            }
    }

    public func takePasscodeTry(_ id: LinkID, now: Date) throws -> PasscodeTry {
        let ms = Self.milliseconds(now)
        let taken = try write { db -> PasscodeTry in
            guard let state = try Self.linkState(id, db) else { return .inactive(nil) }
            if case .locked = state.ended { return .locked }
            if let end = state.end(now: ms) { return .inactive(end) }
            guard let hash = state.passcodeHash else { return .open }
            guard state.failures < LinkLimits.passcodeAttempts else {
                try Self.lock(id, at: ms, db)
                return .locked
            }
            try db.statement("UPDATE link SET failures = failures + 1 WHERE id = ?").run([.text(id.rawValue)])
            return .taken(hash: hash, count: state.failures + 1)
        }
        if taken == .locked { truncateLog() }
        return taken
    }

    public func settlePasscodeTry(_ id: LinkID, right: Bool, now: Date) throws {
        let ms = Self.milliseconds(now)
        let locked = try write { db -> Bool in
            if right {
                try db.statement("UPDATE link SET failures = failures - 1 WHERE id = ? AND failures > 0 AND locked IS NULL").run([.text(id.rawValue)])
                return false
            }
            let failures = try db.statement("SELECT failures FROM link WHERE id = ? AND locked IS NULL").first([.text(id.rawValue)]) { $0.int64(0) }
            guard let failures, failures >= LinkLimits.passcodeAttempts else { return false }
            try Self.lock(id, at: ms, db)
            return true
        }
        if locked { truncateLog() }
    }

    /// The count is spent: the link locks and its files are deleted.
    static func lock(_ id: LinkID, at ms: Int64, _ db: SQLiteConnection) throws {
        try db.statement("UPDATE link SET locked = ? WHERE id = ? AND locked IS NULL").run([.integer(ms), .text(id.rawValue)])
        try clear(id, at: ms, db)
    }

    public func manifest(_ id: LinkID, recipient: String, embedUpTo: Int, now: Date,
                         ticket: () -> (text: String, hash: [UInt8])) throws -> ManifestResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let state = try Self.linkState(id, db) else { return .unknown }
            if let end = state.end(now: ms) { return .inactive(end) }
            guard let version = state.version else { return .notPublished }
            try db.statement("UPDATE link SET opened = opened + 1 WHERE id = ?").run([.text(id.rawValue)])
            try db.statement("INSERT INTO link_access (link, at, recipient) VALUES (?, ?, ?)")
                .run([.text(id.rawValue), .integer(ms), .text(recipient)])
            try db.statement("""
                DELETE FROM link_access WHERE link = ? AND rowid NOT IN (SELECT rowid FROM link_access WHERE link = ? ORDER BY at DESC LIMIT ?)
                """).run([.text(id.rawValue), .text(id.rawValue), .integer(Int64(LinkLimits.accessesKept))])
            let issue = try db.statement("INSERT INTO link_ticket (hash, link, version, n, expires) VALUES (?, ?, ?, ?, ?)")
            return .files(try db.statement("""
                SELECT n, bytes, uploaded, CASE WHEN bytes <= ? THEN jwe END FROM link_file WHERE link = ? AND version = ? ORDER BY n
                """).rows([.integer(Int64(embedUpTo)), .text(id.rawValue), .integer(Int64(version))]) { row in
                let n = Int(row.int64(0))
                var token: String?
                if row.isNull(3) {
                    let made = ticket()
                    try issue.run([.blob(made.hash), .text(id.rawValue), .integer(Int64(version)), .integer(Int64(n)),
                                   .integer(ms + LinkLimits.locationSeconds * 1000)])
                    token = made.text
                }
                return ManifestFile(index: n, bytes: Int(row.int64(1)), uploaded: row.int64(2), embedded: row.optionalBlob(3), ticket: token)
            }, longTerm: state.longTerm)
        }
    }

    public func linkFile(ticket hash: [UInt8], now: Date) throws -> [UInt8]? {
        let ms = Self.milliseconds(now)
        return try read { db in
            try db.statement("""
                SELECT f.jwe FROM link_ticket t JOIN link l ON l.id = t.link
                JOIN link_file f ON f.link = t.link AND f.version = t.version AND f.n = t.n
                WHERE t.hash = ? AND t.expires > ? AND l.expires > ? AND l.revoked IS NULL AND l.locked IS NULL
                """).first([.blob(hash), .integer(ms), .integer(ms)]) { $0.blob(0) }
        }
    }

    public func sweepLinks(now: Date) throws -> LinkSweep {
        let ms = Self.milliseconds(now)
        let sweep = try write { db -> LinkSweep in
            let expired = try db.statement("SELECT id FROM link WHERE cleared IS NULL AND expires <= ?").rows([.integer(ms)]) { try LinkID($0.text(0)) }
            var files = 0
            for id in expired {
                files += Int(try db.statement("SELECT count(*) FROM link_file WHERE link = ?").first([.text(id.rawValue)]) { $0.int64(0) } ?? 0)
                try Self.clear(id, at: ms, db)
            }
            try db.statement("DELETE FROM link_ticket WHERE expires <= ?").run([.integer(ms)])
            let next = try db.statement("SELECT min(expires) FROM link WHERE cleared IS NULL").first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            return LinkSweep(expired: expired.count, files: files, nextExpiry: next)
        }
        if sweep.expired > 0 { truncateLog() }
        return sweep
    }

    /// Empties the write-ahead log into the file and cuts it to nothing, so pages that held a
    /// deleted link's files do not linger in it. Best effort: a reader in the middle of a
    /// snapshot keeps the log, and the next sweep tries again.
    func truncateLog() {
        _ = try? onWriter { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
