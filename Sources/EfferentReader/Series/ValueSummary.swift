/// Readings summarised without keeping them: how many, their extremes and sum, and the last one
/// by start — mergeable, so a day's summary and a bin of days' come from the same numbers.
public struct ValueSummary: Sendable, Equatable {
    public private(set) var count: Int
    public private(set) var min: Double
    public private(set) var max: Double
    public private(set) var sum: Double
    public private(set) var lastStart: Int64
    public private(set) var lastValue: Double

    public init(_ value: Double, at start: Int64) {
        count = 1
        min = value
        max = value
        sum = value
        lastStart = start
        lastValue = value
    }

    /// A summary as recorded (the mirror's index reads them back).
    init(count: Int, min: Double, max: Double, sum: Double, lastStart: Int64, lastValue: Double) {
        self.count = count
        self.min = min
        self.max = max
        self.sum = sum
        self.lastStart = lastStart
        self.lastValue = lastValue
    }

    /// Adds one reading; values are summed in the order they come, as `daily` sums them.
    public mutating func add(_ value: Double, at start: Int64) {
        count += 1
        min = Swift.min(min, value)
        max = Swift.max(max, value)
        sum += value
        if start >= lastStart { lastStart = start; lastValue = value }
    }

    public mutating func merge(_ other: ValueSummary) {
        count += other.count
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        sum += other.sum
        if other.lastStart >= lastStart { lastStart = other.lastStart; lastValue = other.lastValue }
    }

    public var mean: Double { sum / Double(count) }
}
