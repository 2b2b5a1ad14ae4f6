import EfferentBytes

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

    /// Whether two strings are the same UTF-8 bytes, and what decides whether two events share a
    /// series: one loop over contiguous storage (`UTF8Bytes.same`), several times faster than the
    /// generic walk (series keys are names like `workoutRoute.latitude`).
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        UTF8Bytes.same(a, b)
    }

    /// `sameBytes` of two optional strings: both absent, or both present and byte-equal.
    @inline(__always)
    static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (x?, y?): sameBytes(x, y)
        default: false
        }
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
