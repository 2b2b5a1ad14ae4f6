import EfferentCrypto

/// Every string an Ed25519 key signs on the Efferent wire, byte for byte (protocol §5.2, §6, §7,
/// §8). UTF-8, lines joined by `\n`, no trailing newline; timestamps are decimal Unix seconds and
/// digests base64url (no padding) of SHA-256.
public enum SignedMessage {
    /// §5.2: the version tag that opens every signed string.
    public static let version = "efferent/v1"

    /// base64url(SHA-256(body)), the digest every body-carrying string ends with.
    public static func digest(_ body: some Collection<UInt8>) -> String {
        Base64URL.encode(Sodium.sha256(Array(body)))
    }

    /// The upload string, signed by the writer key (protocol §5.2).
    ///
    /// §5.2, writer key: `efferent/v1\n<bucket>\n<days joined by ",">\n<ts>\n<digest(body)>`,
    /// the days in frame order and the digest over the whole frame.
    public static func upload(bucket: BucketID, days: [CalendarDay], timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines([version, bucket.rawValue, days.map(\.description).joined(separator: ","), String(timestamp), digest(body)])
    }

    /// §5.2, writer key: the claim (`PUT /b/<bucket>`) signs an upload of no days and an empty body.
    public static func claim(bucket: BucketID, timestamp: Int64) -> [UInt8] {
        upload(bucket: bucket, days: [], timestamp: timestamp, body: [UInt8]())
    }

    /// §6, writer key: `efferent/v1 editor\n<bucket>\n<ts>\n<digest(32-byte editor public)>`.
    public static func editor(bucket: BucketID, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) editor", bucket.rawValue, String(timestamp), digest(body)])
    }

    /// §6, writer key: `efferent/v1 reader\n<bucket>\n<ts>\n<digest(32-byte read-key public)>`.
    public static func reader(bucket: BucketID, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) reader", bucket.rawValue, String(timestamp), digest(body)])
    }

    /// §6, writer key: `efferent/v1 device\n<bucket>\n<ts>\n<digest(body)>` (empty body for DELETE).
    public static func device(bucket: BucketID, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) device", bucket.rawValue, String(timestamp), digest(body)])
    }

    /// §8, editor key: `efferent/v1 edit\n<bucket>\n<ts>\n<digest(sealed edit incl. its 0x02)>`.
    public static func edit(bucket: BucketID, timestamp: Int64, sealed: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) edit", bucket.rawValue, String(timestamp), digest(sealed)])
    }

    /// §6, writer key: `efferent/v1 fetch\n<bucket>\n<name>\n<ts>` (no body hash).
    public static func fetch(bucket: BucketID, name: EditName, timestamp: Int64) -> [UInt8] {
        lines(["\(version) fetch", bucket.rawValue, name.rawValue, String(timestamp)])
    }

    /// §6, writer key: `efferent/v1 outcome\n<bucket>\n<name>\n<ts>\n<digest(outcome JSON)>`.
    public static func outcome(bucket: BucketID, name: EditName, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) outcome", bucket.rawValue, name.rawValue, String(timestamp), digest(body)])
    }

    /// The read string, signed by the read key (protocol §7).
    ///
    /// §7, read key: `efferent/v1 read\n<bucket>\n<target>\n<ts>`, `target` exactly as requested
    /// (see `readTarget(path:query:)`).
    public static func read(bucket: BucketID, target: String, timestamp: Int64) -> [UInt8] {
        lines(["\(version) read", bucket.rawValue, target, String(timestamp)])
    }

    /// Decision A.15 (documents/protocol.md), read key: managing the archive's shared links —
    /// `efferent/v1 link\n<bucket>\n<METHOD> <target>\n<ts>\n<digest(body)>`. Its own first line, so
    /// no signed read can stand in for it, and the method and body signed, since these change things.
    public static func link(bucket: BucketID, method: String, target: String, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        lines(["\(version) link", bucket.rawValue, method + " " + target, String(timestamp), digest(body)])
    }

    /// §7: the URL path, plus `"?" + query` only when the query is non-empty (`pathname + search`).
    public static func readTarget(path: String, query: String?) -> String {
        guard let query, !query.isEmpty else { return path }
        return path + "?" + query
    }

    private static func lines(_ parts: [String]) -> [UInt8] {
        Array(parts.joined(separator: "\n").utf8)
    }
}
