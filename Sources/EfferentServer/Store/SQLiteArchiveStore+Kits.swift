import EfferentCore
import EfferentSQLite
import Foundation

/// Recovery kits' sealed records in the SQLite store (migration 2's `kit` table).
extension SQLiteArchiveStore {
    public func putKit(_ locator: KitLocator, bucket id: BucketID, writer: Ed25519PublicKey, sealed: [UInt8], quota: Quota, maxKits: Int,
                       now: Date) throws -> PutKitResult {
        let ms = Self.milliseconds(now)
        return try write(changing: id) { db in
            guard let bucket = try Self.bucket(id, db) else { return .notClaimed }
            guard bucket.writer == writer else { return .anotherWriter }
            let holder = try db.statement("SELECT bucket FROM kit WHERE locator = ?").first([.text(locator.rawValue)]) { $0.text(0) }
            if let holder, holder != id.rawValue { return .otherArchive }
            switch try Self.take(sealed.count, bucket: bucket, quota: quota, db) {
            case .bucket: return .bucketFull
            case .service: return .serviceFull
            case nil: break
            }
            try db.statement("""
                INSERT INTO kit (locator, bucket, bytes, at, sealed) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (locator) DO UPDATE SET bytes = excluded.bytes, at = excluded.at, sealed = excluded.sealed
                """).run([.text(locator.rawValue), .text(id.rawValue), .integer(Int64(sealed.count)), .integer(ms), .blob(sealed)])
            // The newest `maxKits` stay, this one among them.
            try db.statement("""
                DELETE FROM kit WHERE bucket = ?1 AND locator <> ?2 AND locator NOT IN
                    (SELECT locator FROM kit WHERE bucket = ?1 ORDER BY at DESC, locator LIMIT ?3)
                """).run([.text(id.rawValue), .text(locator.rawValue), .integer(Int64(max(1, maxKits)))])
            return .stored(replaced: holder != nil, dropped: db.changes)
        }
    }

    public func kit(_ locator: KitLocator) throws -> StoredKit? {
        try read { db in
            try db.statement("SELECT sealed, bucket, at FROM kit WHERE locator = ?").first([.text(locator.rawValue)]) { row in
                StoredKit(sealed: row.blob(0), bucket: try BucketID(row.text(1)), at: row.int64(2))
            }
        }
    }
}
