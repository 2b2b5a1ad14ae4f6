/// The rows of one day that agree on kind, metric, bucket, unit and source: one entry of
/// `series` in layout 2 (protocol §3.1).
public struct DaySeries: Equatable, Sendable {
    public let key: Key
    /// The rows, as events, in the order the body holds them.
    public let events: [DayEvent]

    init(key: Key, events: [DayEvent]) {
        self.key = key
        self.events = events
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

        /// Keys are equal when their text is equal byte for byte: two spellings Swift deems
        /// canonically equivalent stay apart, so the bytes never depend on which came first.
        /// (Byte-equal text is Swift-equal text, so the synthesised hash stays consistent.)
        public static func == (a: Key, b: Key) -> Bool {
            a.kind == b.kind && a.bucket == b.bucket && CanonicalOrder.compareText(a.metric, b.metric) == nil
                && CanonicalOrder.compareText(a.unit, b.unit) == nil && CanonicalOrder.compareText(a.source, b.source) == nil
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
