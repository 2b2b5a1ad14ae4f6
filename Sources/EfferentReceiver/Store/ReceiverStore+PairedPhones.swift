import EfferentCrypto
import EfferentSQLite
import EfferentSystem
import EfferentCore
import EfferentWriter
import Foundation

/// Phones paired with this writer (`efferent receive pair`): each has a bearer token of its own,
/// of which only the SHA-256 is kept, a name, and its figures for `efferent status`.
extension ReceiverStore {
    /// A paired phone as `efferent receive list` and `efferent status` show it.
    public struct PairedPhone: Sendable, Equatable {
        public let id: Int64
        public let name: String
        public let created: Double
        public let lastUsed: Double?
        public let revoked: Double?
        public let lastBatch: Double?
        public let lastError: String?
        public let lastErrorAt: Double?
        /// Batches and samples accepted on the local day asked for.
        public let batchesToday: Int
        public let samplesToday: Int
    }

    /// The user ID the phone sends as `X-User-ID`: this writer's, made once (a random UUID
    /// unless `preferred` names one) and kept in `receiver_meta`.
    public func phoneUser(preferred: PulsUUID? = nil) throws -> PulsUUID {
        try serialized { db in
            if let stored = try Self.user(db) {
                if let preferred, preferred != stored { throw PairingError.otherUser(stored.description) }
                return stored
            }
            var bytes = Sodium.randomBytes(16)
            bytes[6] = bytes[6] & 0x0F | 0x40   // RFC 9562 §5.4: version 4
            bytes[8] = bytes[8] & 0x3F | 0x80   // the variant
            let user = preferred ?? PulsUUID(bytes: bytes)
            try db.statement("INSERT INTO receiver_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                .run([.text(Self.userKey), .text(user.description)])
            return user
        }
    }

    /// The user ID, when a phone has been paired (nil before the first `pair`).
    public func existingPhoneUser() throws -> PulsUUID? { try serialized(Self.user) }

    static let userKey = "receive.user"

    private static func user(_ db: SQLiteConnection) throws -> PulsUUID? {
        try db.statement("SELECT value FROM receiver_meta WHERE key = ?").first([.text(userKey)]) { PulsUUID($0.text(0)) } ?? nil
    }

    /// Issues a token for a phone called `name`: 32 random bytes, base64url, never starting with
    /// `-` (`BearerToken`). It is returned once and never stored; the store keeps its SHA-256.
    public func pairPhone(name: String, now: Double = Date().timeIntervalSince1970) throws -> (id: Int64, token: String) {
        let token = BearerToken.make()
        let id = try serialized { db in
            try db.statement("INSERT INTO phone_token (hash, name, created) VALUES (?, ?, ?)")
                .run([.blob(Self.tokenHash(token)), .text(name), .real(now)])
            return db.lastInsertRowID
        }
        return (id, token)
    }

    public static func tokenHash(_ token: String) -> [UInt8] { Sodium.sha256(Array(token.utf8)) }

    /// Ends phone `id`'s token; false when there is no such phone or it was revoked already.
    public func revokePhone(_ id: Int64, now: Double = Date().timeIntervalSince1970) throws -> Bool {
        try serialized { db in
            try db.statement("UPDATE phone_token SET revoked = ? WHERE id = ? AND revoked IS NULL").run([.real(now), .integer(id)])
            return db.changes == 1
        }
    }

    /// Every phone ever paired, oldest first, with its batches and samples on `today`.
    public func pairedPhones(today: CalendarDay) throws -> [PairedPhone] {
        try serialized { db in
            try db.statement("""
                SELECT t.id, t.name, t.created, t.last_used, t.revoked, t.last_batch, t.last_error, t.last_error_at,
                       coalesce(d.batches, 0), coalesce(d.samples, 0)
                FROM phone_token t LEFT JOIN phone_device_day d ON d.token = t.id AND d.day = ? ORDER BY t.id
                """).rows([.text(today.description)]) { row in
                func optional(_ column: Int32) -> Double? { row.isNull(column) ? nil : row.double(column) }
                return PairedPhone(id: row.int64(0), name: row.text(1), created: row.double(2), lastUsed: optional(3), revoked: optional(4),
                                   lastBatch: optional(5), lastError: row.optionalText(6), lastErrorAt: optional(7),
                                   batchesToday: Int(row.int64(8)), samplesToday: Int(row.int64(9)))
            }
        }
    }

    /// Notes that phone `id` was heard from (a read endpoint, which commits no batch).
    public func touchPhone(_ id: Int64, now: Double = Date().timeIntervalSince1970) throws {
        try serialized { db in
            try db.statement("UPDATE phone_token SET last_used = ? WHERE id = ?").run([.real(now), .integer(id)])
        }
    }
}

/// The paired tokens as a receiver checks them, on a connection of their own: a request's
/// authentication never waits for another batch's transaction (WAL readers do not block).
public final class PhoneTokens: Sendable {
    private let db: Mutex<SQLiteConnection>

    public init(path: String) throws { db = Mutex(try SQLiteConnection(path: path)) }

    /// The phone whose token hashes to `hash`, unless revoked. A lookup by hash compares nothing
    /// secret byte by byte (the protocol's "by hash lookup", §2.2).
    public func phone(hash: [UInt8]) throws -> Int64? {
        try db.withLock { db in
            try db.statement("SELECT id FROM phone_token WHERE hash = ? AND revoked IS NULL").first([.blob(hash)]) { $0.int64(0) }
        }
    }
}

public enum PairingError: Error, Equatable, CustomStringConvertible {
    case otherUser(String)

    public var description: String {
        switch self {
        case let .otherUser(user):
            "This writer's phones already send the user ID \(user); pair without --user, or give that one."
        }
    }
}
