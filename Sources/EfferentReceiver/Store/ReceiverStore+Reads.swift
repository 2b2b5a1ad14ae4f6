import EfferentSQLite
import EfferentCore
import EfferentWriter

/// What the protocol's optional read endpoints answer from the store (Puls Sync Protocol v1 §9):
/// per-type counts, and the reconciliation digests and UUID lists the app compares with HealthKit.
extension ReceiverStore {
    /// One row of `GET /v1/stats` (§9.2). Instants are epoch milliseconds.
    public struct PhoneTypeStats: Sendable, Equatable {
        public let type: String
        public let rows: Int
        public let earliest: Double?
        public let latest: Double?
        public let lastBatchAt: Double?
        public let batches: Int
    }

    public func phoneStats() throws -> [PhoneTypeStats] {
        try serialized { db in
            try db.statement("""
                SELECT t.type, coalesce(s.rows, 0), s.earliest, s.latest, t.last_batch, t.batches FROM phone_type t
                LEFT JOIN (SELECT type, count(*) AS rows, min(start) AS earliest, max(start) AS latest FROM phone_sample
                           WHERE present = 1 GROUP BY type) s ON s.type = t.type
                ORDER BY t.type
                """).rows { row in
                PhoneTypeStats(type: row.text(0), rows: Int(row.int64(1)), earliest: row.isNull(2) ? nil : row.double(2),
                               latest: row.isNull(3) ? nil : row.double(3), lastBatchAt: row.isNull(4) ? nil : row.double(4),
                               batches: Int(row.int64(5)))
            }
        }
    }

    /// One month of `GET /v1/digest` (§9.3): its first instant, its samples, and the XOR of their UUIDs.
    public struct PhoneDigest: Sendable, Equatable {
        public let window: Int64
        public let rows: Int
        public let digest: [UInt8]
    }

    /// The samples of `type` starting in `[from, to)` (epoch ms), by UTC calendar month, ascending.
    public func phoneDigests(type: String, from: Double, to: Double) throws -> [PhoneDigest] {
        var months = [(window: Int64, rows: Int, digest: [UInt8])]()
        try eachPhoneSample(type: type, from: from, to: to) { uuid, start in
            let day = CalendarDay(unixSeconds: Int64((start / 1000).rounded(.down)))
            let window = CalendarDay(year: day.year, month: day.month, day: 1)!.startUnixSeconds * 1000
            if months.last?.window != window { months.append((window, 0, Array(repeating: 0, count: 16))) }
            months[months.count - 1].rows += 1
            for index in 0..<16 { months[months.count - 1].digest[index] ^= uuid[index] }
        }
        return months.map { PhoneDigest(window: $0.window, rows: $0.rows, digest: $0.digest) }
    }

    /// The UUIDs of `type` starting in `[from, to)` (epoch ms), in start order (§9.4).
    public func phoneUUIDs(type: String, from: Double, to: Double) throws -> [PulsUUID] {
        var uuids = [PulsUUID]()
        try eachPhoneSample(type: type, from: from, to: to) { uuid, _ in uuids.append(PulsUUID(bytes: uuid)) }
        return uuids
    }

    private func eachPhoneSample(type: String, from: Double, to: Double, _ body: ([UInt8], Double) -> Void) throws {
        try serialized { db in
            let statement = try db.statement("""
                SELECT uuid, start FROM phone_sample WHERE present = 1 AND type = ? AND start >= ? AND start < ? ORDER BY start
                """)
            _ = try statement.bind([.text(type), .real(from), .real(to)])
            while try statement.step() { body(statement.blob(0), statement.double(1)) }
        }
    }
}
