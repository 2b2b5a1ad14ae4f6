import EfferentCore
import EfferentPostgres
import Foundation

/// Shared links in PostgreSQL (schema migration 2), for several service processes: a link's row
/// is locked (`FOR UPDATE`) by every write that changes it, so passcode tries on one link take
/// turns across processes, and a file counts against the bucket's tally under the bucket's row
/// lock, as uploads do. Deleted rows leave PostgreSQL's files only when it vacuums them
/// (https://www.postgresql.org/docs/current/routine-vacuuming.html); they are ciphertext.
extension PostgresArchiveStore {
    private struct LinkRefusal<Result: Sendable>: Error { let result: Result }

    public func createLink(_ id: LinkID, bucket: BucketID, link: NewLink, now: Date) throws -> CreateLinkResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let record = try Self.bucket(bucket, db, lock: true) else { return .noReader }
            let owner = try db.query("SELECT bucket FROM link WHERE id = $1::text", [.text(id.rawValue)])
            if owner.count == 1 { return owner.text(0, 0) == bucket.rawValue ? .exists : .takenByAnother }
            guard record.reader != nil else { return .noReader }
            let live = Int(try db.query("""
                SELECT count(*) FROM link WHERE bucket = $1::text AND cleared IS NULL AND revoked IS NULL AND locked IS NULL AND expires > $2::int8
                """, [.text(bucket.rawValue), .integer(ms)]).int64(0, 0))
            guard live < LinkLimits.maxLiveLinks else { return .tooMany(live) }
            let inserted = try db.query("""
                INSERT INTO link (id, bucket, created, expires, long_term, passcode) VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::int8 <> 0, $6::text)
                ON CONFLICT (id) DO NOTHING
                """, [.text(id.rawValue), .text(bucket.rawValue), .integer(ms), .integer(link.expires), .integer(link.longTerm ? 1 : 0),
                      link.passcodeHash.map(PostgresValue.text) ?? .null])
            return inserted.affected == 1 ? .created : .takenByAnother
        }
    }

    public func storeLinkFile(_ id: LinkID, bucket: BucketID, file: UploadedLinkFile, quota: Quota, now: Date) throws -> StoreLinkFileResult {
        let ms = Self.milliseconds(now)
        do {
            return try write { db in
                guard let record = try Self.bucket(bucket, db, lock: true), let state = try Self.linkState(id, db, lock: true),
                      state.bucket == bucket else { return .noSuchLink }
                if let end = state.end(now: ms) { return .ended(end) }
                if state.version == file.version { return .published }
                let full = try Self.take(file.jwe.count, bucket: record, quota: quota, db) {
                    try db.query("""
                        INSERT INTO link_file (link, version, n, bytes, uploaded, jwe) VALUES ($1::text, $2::int8, $3::int8, $4::int8, $5::int8, $6::bytea)
                        ON CONFLICT (link, version, n) DO UPDATE SET bytes = excluded.bytes, uploaded = excluded.uploaded, jwe = excluded.jwe
                        """, [.text(id.rawValue), .integer(Int64(file.version)), .integer(Int64(file.index)), .integer(Int64(file.jwe.count)),
                              .integer(ms), .bytes(file.jwe)])
                }
                switch full {
                case .bucket: return .bucketFull
                case .service: throw LinkRefusal<StoreLinkFileResult>(result: .serviceFull)
                case nil: return .stored
                }
            }
        } catch let refusal as LinkRefusal<StoreLinkFileResult> {
            return refusal.result
        }
    }

    public func publishLink(_ id: LinkID, bucket: BucketID, version: Int, files: Int, now: Date) throws -> PublishLinkResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let state = try Self.linkState(id, db, lock: true), state.bucket == bucket else { return .noSuchLink }
            if let end = state.end(now: ms) { return .ended(end) }
            if state.version == version {
                let (count, bytes) = try Self.publishedSize(id, version, db)
                return .published(files: count, bytes: bytes)
            }
            if state.version != nil && !state.longTerm { return .final }
            let rows = try db.query("SELECT n FROM link_file WHERE link = $1::text AND version = $2::int8 AND n < $3::int8",
                                    [.text(id.rawValue), .integer(Int64(version)), .integer(Int64(files))])
            let present = Set((0..<rows.count).map { Int(rows.int64($0, 0)) })
            if let missing = (0..<files).first(where: { !present.contains($0) }) { return .missing(index: missing) }
            try db.query("DELETE FROM link_file WHERE link = $1::text AND (version <> $2::int8 OR n >= $3::int8)",
                         [.text(id.rawValue), .integer(Int64(version)), .integer(Int64(files))])
            try db.query("DELETE FROM link_ticket WHERE link = $1::text AND version <> $2::int8", [.text(id.rawValue), .integer(Int64(version))])
            let (count, bytes) = try Self.publishedSize(id, version, db)
            try db.query("UPDATE link SET version = $1::int8, files = $2::int8, bytes = $3::int8, published = $4::int8 WHERE id = $5::text",
                         [.integer(Int64(version)), .integer(Int64(count)), .integer(bytes), .integer(ms), .text(id.rawValue)])
            return .published(files: count, bytes: bytes)
        }
    }

    static func publishedSize(_ id: LinkID, _ version: Int, _ db: PostgresConnection) throws -> (Int, Int64) {
        let rows = try db.query("SELECT count(*), coalesce(sum(bytes), 0)::int8 FROM link_file WHERE link = $1::text AND version = $2::int8",
                                [.text(id.rawValue), .integer(Int64(version))])
        return (Int(rows.int64(0, 0)), rows.int64(0, 1))
    }

    public func revokeLink(_ id: LinkID, bucket: BucketID, now: Date) throws -> RevokeLinkResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let state = try Self.linkState(id, db, lock: true), state.bucket == bucket else { return .noSuchLink }
            if let end = state.ended { return .alreadyEnded(end) }
            try db.query("UPDATE link SET revoked = $1::int8 WHERE id = $2::text", [.integer(ms), .text(id.rawValue)])
            try Self.clear(id, at: ms, db)
            return .revoked
        }
    }

    static func clear(_ id: LinkID, at ms: Int64, _ db: PostgresConnection) throws {
        try db.query("DELETE FROM link_file WHERE link = $1::text", [.text(id.rawValue)])
        try db.query("DELETE FROM link_ticket WHERE link = $1::text", [.text(id.rawValue)])
        try db.query("UPDATE link SET cleared = coalesce(cleared, $1::int8) WHERE id = $2::text", [.integer(ms), .text(id.rawValue)])
    }

    public func links(of bucket: BucketID) throws -> [LinkSummary] {
        try use { db in
            let rows = try db.query("""
                SELECT id, created, expires, long_term::int4::int8, (passcode IS NOT NULL)::int4::int8, failures, version, files, bytes, published, opened,
                       revoked, locked
                FROM link WHERE bucket = $1::text ORDER BY created DESC, id
                """, [.text(bucket.rawValue)])
            let accessRows = try db.query("""
                SELECT a.link, a.at, a.recipient FROM link_access a JOIN link l ON l.id = a.link WHERE l.bucket = $1::text ORDER BY a.at DESC
                """, [.text(bucket.rawValue)])
            var accesses = [String: [LinkAccess]]()
            for row in 0..<accessRows.count {
                accesses[accessRows.text(row, 0), default: []].append(LinkAccess(at: accessRows.int64(row, 1), recipient: accessRows.text(row, 2)))
            }
            return try (0..<rows.count).map { row in
                let id = try LinkID(rows.text(row, 0))
                return LinkSummary(id: id, created: rows.int64(row, 1), expires: rows.int64(row, 2), longTerm: rows.int64(row, 3) != 0,
                                   passcode: rows.int64(row, 4) != 0, failures: Int(rows.int64(row, 5)),
                                   version: rows.optionalInt64(row, 6).map(Int.init), files: Int(rows.int64(row, 7)), bytes: rows.int64(row, 8),
                                   published: rows.optionalInt64(row, 9), opened: Int(rows.int64(row, 10)), accesses: accesses[id.rawValue] ?? [],
                                   ended: LinkEnd.stored(revoked: rows.optionalInt64(row, 11), locked: rows.optionalInt64(row, 12)))
            }
        }
    }

    public func linkState(_ id: LinkID) throws -> LinkState? {
        try use { db in try Self.linkState(id, db, lock: false) }
    }

    static func linkState(_ id: LinkID, _ db: PostgresConnection, lock: Bool) throws -> LinkState? {
        let rows = try db.query("""
            SELECT bucket, expires, long_term::int4::int8, passcode, failures, version, revoked, locked FROM link WHERE id = $1::text
            """ + (lock ? " FOR UPDATE" : ""), [.text(id.rawValue)])
        guard rows.count == 1 else { return nil }
        return LinkState(bucket: try BucketID(rows.text(0, 0)), expires: rows.int64(0, 1), longTerm: rows.int64(0, 2) != 0,
                         passcodeHash: rows.optionalText(0, 3), failures: Int(rows.int64(0, 4)), version: rows.optionalInt64(0, 5).map(Int.init),
                         ended: LinkEnd.stored(revoked: rows.optionalInt64(0, 6), locked: rows.optionalInt64(0, 7)))
    }

    public func takePasscodeTry(_ id: LinkID, now: Date) throws -> PasscodeTry {
        let ms = Self.milliseconds(now)
        // The row is locked for the count alone; the check itself runs after the commit.
        return try write { db in
            guard let state = try Self.linkState(id, db, lock: true) else { return .inactive(nil) }
            if case .locked = state.ended { return .locked }
            if let end = state.end(now: ms) { return .inactive(end) }
            guard let hash = state.passcodeHash else { return .open }
            guard state.failures < LinkLimits.passcodeAttempts else {
                try Self.lock(id, at: ms, db)
                return .locked
            }
            try db.query("UPDATE link SET failures = failures + 1 WHERE id = $1::text", [.text(id.rawValue)])
            return .taken(hash: hash, count: state.failures + 1)
        }
    }

    public func settlePasscodeTry(_ id: LinkID, right: Bool, now: Date) throws {
        let ms = Self.milliseconds(now)
        try write { db in
            if right {
                try db.query("UPDATE link SET failures = failures - 1 WHERE id = $1::text AND failures > 0 AND locked IS NULL", [.text(id.rawValue)])
                return
            }
            let rows = try db.query("SELECT failures FROM link WHERE id = $1::text AND locked IS NULL FOR UPDATE", [.text(id.rawValue)])
            guard rows.count > 0, rows.int64(0, 0) >= LinkLimits.passcodeAttempts else { return }
            try Self.lock(id, at: ms, db)
        }
    }

    /// The count is spent: the link locks and its files are deleted.
    static func lock(_ id: LinkID, at ms: Int64, _ db: PostgresConnection) throws {
        try db.query("UPDATE link SET locked = $1::int8 WHERE id = $2::text AND locked IS NULL", [.integer(ms), .text(id.rawValue)])
        try clear(id, at: ms, db)
    }

    public func manifest(_ id: LinkID, recipient: String, embedUpTo: Int, now: Date,
                         ticket: () -> (text: String, hash: [UInt8])) throws -> ManifestResult {
        let ms = Self.milliseconds(now)
        return try write { db in
            guard let state = try Self.linkState(id, db, lock: false) else { return .unknown }
            if let end = state.end(now: ms) { return .inactive(end) }
            guard let version = state.version else { return .notPublished }
            try db.query("UPDATE link SET opened = opened + 1 WHERE id = $1::text", [.text(id.rawValue)])
            try db.query("INSERT INTO link_access (link, at, recipient) VALUES ($1::text, $2::int8, $3::text)",
                         [.text(id.rawValue), .integer(ms), .text(recipient)])
            try db.query("""
                DELETE FROM link_access WHERE link = $1::text AND ctid NOT IN
                    (SELECT ctid FROM link_access WHERE link = $1::text ORDER BY at DESC LIMIT $2::int8)
                """, [.text(id.rawValue), .integer(Int64(LinkLimits.accessesKept))])
            let rows = try db.query("""
                SELECT n, bytes, uploaded, CASE WHEN bytes <= $1::int8 THEN jwe END FROM link_file WHERE link = $2::text AND version = $3::int8 ORDER BY n
                """, [.integer(Int64(embedUpTo)), .text(id.rawValue), .integer(Int64(version))])
            var files = [ManifestFile]()
            for row in 0..<rows.count {
                let n = Int(rows.int64(row, 0))
                var token: String?
                if rows.isNull(row, 3) {
                    let made = ticket()
                    try db.query("INSERT INTO link_ticket (hash, link, version, n, expires) VALUES ($1::bytea, $2::text, $3::int8, $4::int8, $5::int8)",
                                 [.bytes(made.hash), .text(id.rawValue), .integer(Int64(version)), .integer(Int64(n)),
                                  .integer(ms + LinkLimits.locationSeconds * 1000)])
                    token = made.text
                }
                files.append(ManifestFile(index: n, bytes: Int(rows.int64(row, 1)), uploaded: rows.int64(row, 2),
                                          embedded: rows.optionalBytes(row, 3), ticket: token))
            }
            return .files(files, longTerm: state.longTerm)
        }
    }

    public func linkFile(ticket hash: [UInt8], now: Date) throws -> [UInt8]? {
        let ms = Self.milliseconds(now)
        return try use { db in
            let rows = try db.query("""
                SELECT f.jwe FROM link_ticket t JOIN link l ON l.id = t.link
                JOIN link_file f ON f.link = t.link AND f.version = t.version AND f.n = t.n
                WHERE t.hash = $1::bytea AND t.expires > $2::int8 AND l.expires > $2::int8 AND l.revoked IS NULL AND l.locked IS NULL
                """, [.bytes(hash), .integer(ms)])
            return rows.count == 1 ? rows.bytes(0, 0) : nil
        }
    }

    public func sweepLinks(now: Date) throws -> LinkSweep {
        let ms = Self.milliseconds(now)
        return try write { db in
            let expired = try db.query("SELECT id FROM link WHERE cleared IS NULL AND expires <= $1::int8 FOR UPDATE SKIP LOCKED", [.integer(ms)])
            var files = 0
            for row in 0..<expired.count {
                let id = try LinkID(expired.text(row, 0))
                files += Int(try db.query("SELECT count(*) FROM link_file WHERE link = $1::text", [.text(id.rawValue)]).int64(0, 0))
                try Self.clear(id, at: ms, db)
            }
            try db.query("DELETE FROM link_ticket WHERE expires <= $1::int8", [.integer(ms)])
            let next = try db.query("SELECT min(expires) FROM link WHERE cleared IS NULL").optionalInt64(0, 0)
            return LinkSweep(expired: expired.count, files: files, nextExpiry: next)
        }
    }
}
