/// One thing an edit asks the writer to do in Health (protocol §8).
///
/// Put a sample under the agent's id, or delete what was written under it.
public enum EditItem: Equatable, Sendable {
    case put(Put)
    case delete(id: String)

    /// `{op:"put", id, metric, start, end, value?, unit?, stage?}`.
    public struct Put: Equatable, Sendable {
        public var id: String
        public var metric: String
        /// Whole Unix seconds.
        public var start: Int64
        public var end: Int64
        public var value: Double?
        public var unit: String?
        public var stage: String?

        public init(id: String, metric: String, start: Int64, end: Int64, value: Double? = nil, unit: String? = nil, stage: String? = nil) {
            self.id = id
            self.metric = metric
            self.start = start
            self.end = end
            self.value = value
            self.unit = unit
            self.stage = stage
        }
    }

    /// §8: `^[A-Za-z0-9._:-]{1,120}$`.
    public static let maxIDLength = 120

    public var id: String {
        switch self {
        case let .put(put): put.id
        case let .delete(id): id
        }
    }

    /// Whether `id` is an agent's handle as §8 allows.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...maxIDLength).contains(bytes.count) && bytes.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b == UInt8(ascii: "-")
        }
    }

    /// Checks every rule of protocol §8 for one item at the moment `now`.
    ///
    /// Every rule of §8 for one item at the moment `now` (Unix seconds): the id; a known metric;
    /// for sleep a known stage and no value or unit; for a quantity a finite value ≥ 0 in exactly
    /// its unit, within the metric's physical bounds, and no stage; start and end non-negative, end ≥ start, end not in the future,
    /// sleep no longer than 24 h. The error's `code` is the word the writer answers.
    public func validate(now: Int64) throws(EditItemError) {
        guard EditItem.isValidID(id) else { throw .badID }
        guard case let .put(put) = self else { return }
        guard let metric = WritableMetric(rawValue: put.metric) else { throw .unknownMetric }
        if metric.isCategory {
            guard put.unit == nil else { throw .unitOnSleep }
            guard put.value == nil else { throw .valueOnSleep }
            guard let stage = put.stage else { throw .missingStage }
            guard WritableMetric.sleepStages.contains(stage) else { throw .unknownStage }
        } else {
            guard put.stage == nil else { throw .stageOnQuantity }
            guard let unit = put.unit, unit == metric.unit else { throw .wrongUnit(expected: metric.unit ?? "") }
            guard let value = put.value else { throw .missingValue }
            guard value.isFinite, value >= 0 else { throw .badValue }
            if let bounds = metric.bounds, !bounds.contains(value) { throw .outsideBounds(metric: metric, bounds: bounds) }
        }
        guard put.start >= 0, put.end >= put.start else { throw .backwards }
        guard put.end <= now else { throw .future }
        if metric.isCategory, put.end - put.start > WritableMetric.maxSleepSeconds { throw .sleepTooLong }
    }
}
