import EfferentCore

/// The kinds of line after a batch's header, in the order the header's counts declare them and
/// the lines must follow (Puls Sync Protocol v1 §3.1).
public enum PulsLineKind: Int, CaseIterable, Sendable {
    case sample, deletion, route, series, aggregate, activitySummary, profile

    /// The header field that counts this kind.
    var countField: String {
        switch self {
        case .sample: "sampleCount"
        case .deletion: "deletionCount"
        case .route: "routeCount"
        case .series: "seriesCount"
        case .aggregate: "aggregateCount"
        case .activitySummary: "activitySummaryCount"
        case .profile: "profileCount"
        }
    }

    /// The one top-level key of a wrapped line (§3.3); samples are bare.
    var wrapper: String? {
        switch self {
        case .sample: nil
        case .deletion: "deleted"
        case .route: "route"
        case .series: "series"
        case .aggregate: "aggregate"
        case .activitySummary: "activitySummary"
        case .profile: "profile"
        }
    }

    /// For messages: `sample`, `deletion`, `activity-summary`.
    var name: String {
        switch self {
        case .activitySummary: "activity-summary"
        default: String(describing: self)
        }
    }

    static let wrappers: [(String, PulsLineKind)] = allCases.compactMap { kind in kind.wrapper.map { ($0, kind) } }
}

/// The first line of a batch (§3.2): its identity, its label and how many lines of each kind follow.
public struct PulsHeader: Sendable, Equatable {
    public let batchID: PulsUUID
    public let deviceID: String
    /// A label only (the biggest contributor, or `probe`): line types come from the lines.
    public let type: String
    public let reason: String
    public let exportedAt: Double
    /// The phone's zone when it made the batch (an IANA name), when the app sends it.
    public let timeZoneID: String?
    /// Lines of each kind, by `PulsLineKind.rawValue`.
    public let counts: [Int]

    public func count(_ kind: PulsLineKind) -> Int { counts[kind.rawValue] }
    public var lineCount: Int { counts.reduce(0, +) }

    /// The versions this receiver speaks (`protocolVersions` in `/v1/capabilities`).
    public static let supportedVersions: [Int64] = [1]
    public static let reasons: Set<String> = ["backfill", "incremental", "manual", "reconciliation"]

    /// Reads and checks the header line: `schemaVersion` before any other field (§7.3), then the
    /// rest by `header.schema.json`, then the counts against `limits`. The counts after
    /// `deletionCount` are 0 when absent (§3.1).
    init(_ value: JSONValue, limits: PulsLimits) throws(PulsBatchError) {
        let fields = try PulsFields(value, place: .text("line 1 (the header)"))
        if let version = fields.value("schemaVersion") {
            guard let number = version.integerValue, Self.supportedVersions.contains(number) else { throw .unsupportedVersion }
        }
        batchID = try fields.uuid("batchID")
        deviceID = try fields.string("deviceID", required: true, nonEmpty: true)!
        type = try fields.string("type", required: true, nonEmpty: true)!
        reason = try fields.oneOf("reason", Self.reasons, required: true)!
        exportedAt = try fields.epochMilliseconds("exportedAt", required: true)!
        _ = try fields.string("clientVersion")
        timeZoneID = try fields.string("timeZoneID", maxLength: 100)
        var counts = [Int]()
        for kind in PulsLineKind.allCases {
            let ceiling: Int64 = kind == .profile ? 1 : Int64.max
            // Every client sends these two (the schema requires them); the later counts are absent on older ones.
            let required = kind == .sample || kind == .deletion
            guard let count = try fields.integer(kind.countField, required: required, in: 0...ceiling) else {
                counts.append(0)
                continue
            }
            guard count <= limits.linesPerKind else {
                throw .tooLarge("line 1 (the header): \"\(kind.countField)\" is over this receiver's limit of \(limits.linesPerKind)")
            }
            counts.append(Int(count))
        }
        guard counts.reduce(0, +) <= limits.linesPerBatch else {
            throw .tooLarge("line 1 (the header): the counts add up to more than this receiver's limit of \(limits.linesPerBatch) lines")
        }
        self.counts = counts
    }
}

/// What one batch may hold (§2.5: the reference server's limits, which the app is built for).
public struct PulsLimits: Sendable {
    /// The body once inflated (and a plain body as sent).
    public var inflatedBytes = 128 << 20
    public var lineBytes = 4 << 20
    public var linesPerKind = 100_000
    public var linesPerBatch = 200_000
    public var pointsPerLine = 4_000
    /// Route points, and series points, per batch (each).
    public var pointsPerBatch = 100_000

    public init() {}
}
