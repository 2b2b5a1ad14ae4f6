import EfferentCore
import EfferentPostgres
import Foundation

/// Recovery kits' sealed records in the PostgreSQL store (migration 2's `kit` table).
extension PostgresArchiveStore {
    public func putKit(_ locator: KitLocator, bucket id: BucketID, writer: Ed25519PublicKey, sealed: [UInt8], quota: Quota, maxKits: Int,
                       now: Date) throws -> PutKitResult {
        let ms = Self.milliseconds(now)
        return try refusing { db in
            guard let bucket = try Self.bucket(id, db, lock: true) else { return .notClaimed }
            guard bucket.writer == writer else { return .anotherWriter }
            let holder = try db.query("SELECT bucket FROM kit WHERE locator = $1::text FOR UPDATE", [.text(locator.rawValue)])
            let replaced = holder.count == 1
            if replaced, holder.text(0, 0) != id.rawValue { return .otherArchive }
            var dropped = 0
            let full = try Self.take(sealed.count, bucket: bucket, quota: quota, db) {
                try db.query("""
                    INSERT INTO kit (locator, bucket, bytes, at, sealed) VALUES ($1::text, $2::text, $3::int8, $4::int8, $5::bytea)
                    ON CONFLICT (locator) DO UPDATE SET bytes = excluded.bytes, at = excluded.at, sealed = excluded.sealed
                    """, [.text(locator.rawValue), .text(id.rawValue), .integer(Int64(sealed.count)), .integer(ms), .bytes(sealed)])
                // The newest `maxKits` stay, this one among them.
                dropped = try db.query("""
                    DELETE FROM kit WHERE bucket = $1::text AND locator <> $2::text AND locator NOT IN
                        (SELECT locator FROM kit WHERE bucket = $1::text ORDER BY at DESC, locator LIMIT $3::int8)
                    """, [.text(id.rawValue), .text(locator.rawValue), .integer(Int64(max(1, maxKits)))]).affected
            }
            switch full {
            case .bucket: return .bucketFull
            case .service: throw Refusal<PutKitResult>(result: .serviceFull)
            case nil: return .stored(replaced: replaced, dropped: dropped)
            }
        }
    }

    public func kit(_ locator: KitLocator) throws -> StoredKit? {
        try use { db in
            let rows = try db.query("SELECT sealed, bucket, at FROM kit WHERE locator = $1::text", [.text(locator.rawValue)])
            guard rows.count == 1 else { return nil }
            return StoredKit(sealed: rows.bytes(0, 0), bucket: try BucketID(rows.text(0, 1)), at: rows.int64(0, 2))
        }
    }
}
