import EfferentCore

/// Every route of protocol §6–§8, matched from a raw path. Bucket ids, days and edit names are
/// parsed here, so a handler only ever sees valid ones.
public enum Route: Equatable, Sendable {
    case health
    case claim(BucketID)
    case days(BucketID)
    case day(BucketID, CalendarDay)
    case range(BucketID)
    case stats(BucketID)
    case editor(BucketID)
    case reader(BucketID)
    case device(BucketID)
    case edits(BucketID)
    case edit(BucketID, EditName)
    case outcome(BucketID, EditName)
    case answered(BucketID, EditName)
    case mcp(BucketID)

    /// The pattern a log line names, never the concrete bucket.
    public var pattern: String {
        switch self {
        case .health: "/health"
        case .claim: "/b/:bucket"
        case .days: "/b/:bucket/days"
        case .day: "/b/:bucket/d/:day"
        case .range: "/b/:bucket/d"
        case .stats: "/b/:bucket/stats"
        case .editor: "/b/:bucket/editor"
        case .reader: "/b/:bucket/reader"
        case .device: "/b/:bucket/device"
        case .edits: "/b/:bucket/edits"
        case .edit: "/b/:bucket/e/:name"
        case .outcome: "/b/:bucket/e/:name/outcome"
        case .answered: "/b/:bucket/o/:name"
        case .mcp: "/mcp/b/:bucket"
        }
    }

    /// The methods the route answers.
    public var methods: [String] {
        switch self {
        case .health, .day, .range, .stats, .edit, .answered: ["GET"]
        case .claim, .editor, .reader, .outcome: ["PUT"]
        case .days: ["GET", "PUT"]
        case .device: ["PUT", "DELETE"]
        case .edits: ["GET", "POST"]
        case .mcp: ["POST"]
        }
    }

    /// The largest body the route takes (§6); larger ones are refused before they are read.
    public func maxBody(method: String) -> Int {
        switch (self, method) {
        case (.days, "PUT"): ProtocolLimits.maxRequestBytes
        case (.edits, "POST"): ProtocolLimits.maxEditBytes
        case (.outcome, _): ProtocolLimits.maxOutcomeBytes
        case (.mcp, _): 1024 * 1024
        default: 4096
        }
    }

    /// Matches a path; throws the 404 or 400 the protocol gives for what does not match.
    public init(path: Substring) throws(ServiceError) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let segments = Array(parts)
        func bucket(_ text: Substring) throws(ServiceError) -> BucketID {
            guard let id = try? BucketID(text) else { throw ServiceError.malformedBucket }
            return id
        }
        func name(_ text: Substring) throws(ServiceError) -> EditName {
            guard let name = try? EditName(text) else { throw ServiceError(400, "malformed edit name") }
            return name
        }
        switch segments.count {
        case 1 where segments[0] == "health":
            self = .health
        case 2 where segments[0] == "b":
            self = .claim(try bucket(segments[1]))
        case 3 where segments[0] == "b":
            let id = try bucket(segments[1])
            switch segments[2] {
            case "days": self = .days(id)
            case "d": self = .range(id)
            case "stats": self = .stats(id)
            case "editor": self = .editor(id)
            case "reader": self = .reader(id)
            case "device": self = .device(id)
            case "edits": self = .edits(id)
            default: throw ServiceError.unknownPath
            }
        case 3 where segments[0] == "mcp" && segments[1] == "b":
            self = .mcp(try bucket(segments[2]))
        case 4 where segments[0] == "b":
            let id = try bucket(segments[1])
            switch segments[2] {
            case "d":
                guard let day = CalendarDay(segments[3]) else { throw ServiceError(400, "\(segments[3].prefix(40)) is not a real date (YYYY-MM-DD)") }
                self = .day(id, day)
            case "e": self = .edit(id, try name(segments[3]))
            case "o": self = .answered(id, try name(segments[3]))
            default: throw ServiceError.unknownPath
            }
        case 5 where segments[0] == "b" && segments[2] == "e" && segments[4] == "outcome":
            self = .outcome(try bucket(segments[1]), try name(segments[3]))
        default:
            throw ServiceError.unknownPath
        }
    }
}
