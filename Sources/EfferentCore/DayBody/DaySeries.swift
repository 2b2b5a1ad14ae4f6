/// The rows of one day that agree on kind, metric, bucket, unit and source: one entry of
/// `series` in layout 2 (protocol §3.1).
public struct DaySeries: Equatable, Sendable {
    public let key: Key
    /// The rows, as events, in the order the body holds them.
    public let events: [DayEvent]

    public init(key: Key, events: [DayEvent]) {
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

/// The comparisons of decision A.5, shared by series and rows.
enum CanonicalOrder {
    /// `a < b` when the two differ, `nil` when they are equal (so the caller moves on to the
    /// next field).
    @inline(__always)
    static func compare<T: Comparable>(_ a: T, _ b: T) -> Bool? {
        a == b ? nil : a < b
    }

    /// Absent before present, then by value.
    @inline(__always)
    static func compare<T: Comparable>(_ a: T?, _ b: T?) -> Bool? {
        switch (a, b) {
        case (nil, nil): nil
        case (nil, .some): true
        case (.some, nil): false
        case let (x?, y?): x == y ? nil : x < y
        }
    }

    /// Swift's `String <`, then (only between canonically equivalent spellings, which `<` deems
    /// equal) the UTF-8 bytes, so that the order is total and identical content sorts alike.
    @inline(__always)
    static func compareText(_ a: String, _ b: String) -> Bool? {
        if a == b { return sameBytes(a, b) ? nil : a.utf8.lexicographicallyPrecedes(b.utf8) }
        return a < b
    }

    /// Whether two strings are the same UTF-8 bytes, compared over contiguous storage when the
    /// strings have it (native ones do), which is several times faster than the generic walk.
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.elementsEqual(y) }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Absent before present, then as `compareText`.
    @inline(__always)
    static func compareText(_ a: String?, _ b: String?) -> Bool? {
        switch (a, b) {
        case (nil, nil): nil
        case (nil, .some): true
        case (.some, nil): false
        case let (x?, y?): compareText(x, y)
        }
    }

    /// Rows within a series (decision A.5): start, end, value, stage, activity, duration.
    static func rowPrecedes(_ a: DayEvent, _ b: DayEvent) -> Bool {
        if let order = compare(a.start, b.start) { return order }
        if let order = compare(a.end, b.end) { return order }
        if let order = compare(a.value, b.value) { return order }
        if let order = compareText(a.stage, b.stage) { return order }
        if let order = compareText(a.activity, b.activity) { return order }
        return compare(a.duration, b.duration) ?? false
    }
}
