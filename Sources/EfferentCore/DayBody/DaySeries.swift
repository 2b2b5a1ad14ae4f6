/// The rows of one day that agree on kind, metric, bucket, unit and source: one entry of
/// `series` in layout 2 (protocol §3.1).
///
/// The rows are kept as columns, as the body holds them, and become events only when asked: a
/// decade with every type is 29 million rows (GPS fixes, ECG voltages), and an event per row —
/// five strings and a hundred-odd bytes each — cost more than reading the body did.
public struct DaySeries: Equatable, Sendable {
    let columns: Columns

    public var key: Key { columns.key }
    /// The number of rows.
    public var count: Int { columns.starts.count }
    /// The rows, as events, in the order the body holds them (built on each call).
    public var events: [DayEvent] { (0..<count).map(event(at:)) }

    /// Row `row` as an event (`0 ≤ row < count`).
    public func event(at row: Int) -> DayEvent { columns.event(at: row) }

    // The columns themselves, for a reader that folds every row of a decade (the mirror's index,
    // digested as sync stores each day): an event per row costs more than storing the day did.

    /// Each row's start (Unix seconds), in body order.
    public var starts: [Int64] { columns.starts }
    /// Each row's end (Unix seconds), in body order.
    public var ends: [Int64] { columns.ends }
    /// Each row's value, NaN where the row has none (a row's value is never NaN); `nil` when the
    /// body carries no value column.
    public var values: [Double]? { columns.values }
    /// Row `row`'s workout activity, as `event(at:)` carries it.
    public func activity(at row: Int) -> String? { columns.activities?[row] ?? nil }
    /// Each row's stage, in body order; `nil` when the body carries no stage column.
    public var stages: [String?]? { columns.stages }
    /// Each row's activity, in body order; `nil` when the body carries no activity column.
    public var activities: [String?]? { columns.activities }
    /// Row `row`'s workout duration, as `event(at:)` carries it.
    public func duration(at row: Int) -> Double? { columns.duration(at: row) }

    init(columns: Columns) { self.columns = columns }

    /// Rows that have passed `DayEvent`'s checks (the full decoder builds them).
    init(key: Key, events: [DayEvent]) {
        func column<T>(_ cell: (DayEvent) -> T?) -> [T?]? { events.contains { cell($0) != nil } ? events.map(cell) : nil }
        columns = Columns(key: key, starts: events.map(\.start), ends: events.map(\.end),
                          values: column(\.value).map { $0.map { $0 ?? .nan } }, durations: column(\.duration).map { $0.map { $0 ?? .nan } },
                          stages: column(\.stage), activities: column(\.activity))
    }

    /// Equal when key and rows are: a column of nulls equals an absent column.
    public static func == (a: DaySeries, b: DaySeries) -> Bool {
        a.columns === b.columns || (a.key == b.key && a.events == b.events)
    }

    /// One series' columns, shared by the series and every expanded event that points into it.
    /// Numbers are Doubles with NaN for null: a `DayEvent` holds finite numbers only.
    final class Columns: Sendable {
        let key: Key
        let starts: [Int64]
        let ends: [Int64]
        let values: [Double]?
        let durations: [Double]?
        let stages: [String?]?
        let activities: [String?]?

        /// Columns whose rows would each pass `DayEvent.init` (the reader checks as it reads).
        init(key: Key, starts: [Int64], ends: [Int64], values: [Double]?, durations: [Double]?, stages: [String?]?, activities: [String?]?) {
            self.key = key
            self.starts = starts
            self.ends = ends
            self.values = values
            self.durations = durations
            self.stages = stages
            self.activities = activities
        }

        func value(at row: Int) -> Double? { values.flatMap { $0[row].isNaN ? nil : $0[row] } }
        func duration(at row: Int) -> Double? { durations.flatMap { $0[row].isNaN ? nil : $0[row] } }

        func event(at row: Int) -> DayEvent {
            DayEvent(checked: key, start: starts[row], end: ends[row], value: value(at: row), stage: stages?[row] ?? nil,
                     activity: activities?[row] ?? nil, duration: duration(at: row))
        }
    }

    /// What every row of a series shares.
    public struct Key: Hashable, Sendable, Comparable {
        public let kind: DayEvent.Kind
        public let metric: String
        public let bucket: DayEvent.Bucket?
        public let unit: String?
        public let source: String?

        public init(kind: DayEvent.Kind, metric: String, bucket: DayEvent.Bucket?, unit: String?, source: String?) {
            self.kind = kind
            self.metric = metric
            self.bucket = bucket
            self.unit = unit
            self.source = source
        }

        public init(of event: DayEvent) {
            self.init(kind: event.kind, metric: event.metric, bucket: event.bucket, unit: event.unit, source: event.source)
        }

        /// Whether `event` belongs to the series of this key (`Key(of: event) == self`, without
        /// building the key).
        @inline(__always)
        func holds(_ event: DayEvent) -> Bool {
            kind == event.kind && bucket == event.bucket && CanonicalOrder.sameBytes(metric, event.metric)
                && CanonicalOrder.sameBytes(unit, event.unit) && CanonicalOrder.sameBytes(source, event.source)
        }

        /// Keys are equal when their text is equal byte for byte: two spellings Swift deems
        /// canonically equivalent stay apart, so the bytes never depend on which came first.
        /// (Byte-equal text is Swift-equal text, so the synthesised hash stays consistent.)
        public static func == (a: Key, b: Key) -> Bool {
            a.kind == b.kind && a.bucket == b.bucket && CanonicalOrder.sameBytes(a.metric, b.metric)
                && CanonicalOrder.sameBytes(a.unit, b.unit) && CanonicalOrder.sameBytes(a.source, b.source)
        }

        /// Decision A.5: by (k, metric, bucket, unit, source), `k` by raw value, an absent value
        /// before any string, strings as Swift's `String <` compares them.
        public static func < (a: Key, b: Key) -> Bool {
            if a.kind != b.kind { return a.kind < b.kind }
            if let order = CanonicalOrder.compareText(a.metric, b.metric) { return order }
            if let order = CanonicalOrder.compare(a.bucket, b.bucket) { return order }
            if let order = CanonicalOrder.compareText(a.unit, b.unit) { return order }
            return CanonicalOrder.compareText(a.source, b.source) ?? false
        }
    }
}
