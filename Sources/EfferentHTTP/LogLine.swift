import EfferentCore
import Foundation

/// One structured log line, as one JSON object: the time, the level, then the
/// fields in the order given. The three servers and the receiver's batch and sealing lines all
/// write these (the access log keeps its own fixed shape, `AccessLog`).
///
/// What goes in a field is the caller's rule, kept everywhere: counts, sizes, durations, statuses,
/// route patterns, addresses and sentences a person can act on; never a value from a body, a
/// bucket, day or file name, a key or a token.
public struct LogLine: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public indirect enum Field: Sendable {
        case text(String)
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        case object([(String, Field)])
        case list([Field])

        public static func count(_ value: Int) -> Field { .integer(Int64(value)) }
    }

    public let level: Level
    public let fields: [(String, Field)]
    public let time: Date

    public init(_ level: Level, _ fields: [(String, Field)], time: Date = Date()) {
        self.level = level
        self.fields = fields
        self.time = time
    }

    public init(_ level: Level, _ fields: KeyValuePairs<String, Field>, time: Date = Date()) {
        self.init(level, fields.map { ($0.key, $0.value) }, time: time)
    }

    /// The line, without its newline.
    public var json: String {
        var members: [(String, Field)] = [("t", .text(ISOTime.milliseconds(Int64(time.timeIntervalSince1970 * 1000))))]
        members.append(("level", .text(level.rawValue)))
        return Self.render(.object(members + fields))
    }

    static func render(_ field: Field) -> String {
        switch field {
        case let .text(text): AccessLog.jsonString(text)
        case let .integer(value): String(value)
        case let .number(value):
            value.isFinite ? (value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)) : "null"
        case let .bool(value): value ? "true" : "false"
        case let .object(members): "{" + members.map { AccessLog.jsonString($0.0) + ":" + render($0.1) }.joined(separator: ",") + "}"
        case let .list(items): "[" + items.map(render).joined(separator: ",") + "]"
        }
    }
}
