import Foundation

/// A value axis with ticks at round numbers — steps of 1, 2 or 5 times a power of ten — that
/// covers the data, so a reader sees 0, 50, 100, 150 rather than 47.3 and 163.9.
public struct NiceScale: Sendable, Equatable {
    /// The axis' ends, both tick values.
    public let low: Double
    public let high: Double
    public let step: Double
    /// Decimals a tick label needs to show the step exactly (0.5 → 1, 0.02 → 2).
    public let decimals: Int

    /// About `target` steps over `[low, high]`; with `zero` the axis reaches 0 (bars start there).
    /// An empty or flat range is widened so the axis still has ticks.
    public init(low: Double, high: Double, target: Int = 5, zero: Bool = false) {
        // Ends held within ±10³⁰⁰ and at least 10⁻⁹ apart, so that every step below stays a
        // finite, normal number whatever a day holds (a stored 1e308 kg, a subnormal reading):
        // the decimals are then a small whole number, never a trap converting infinity or NaN.
        let limit = 1e300
        var low = low.isFinite ? Swift.min(Swift.max(low, -limit), limit) : 0
        var high = high.isFinite ? Swift.min(Swift.max(high, -limit), limit) : 1
        if zero { low = Swift.min(low, 0); high = Swift.max(high, 0) }
        if high < low { swap(&low, &high) }
        if high - low < 1e-9 {
            let pad = low == 0 ? 1 : Swift.max(abs(low) * 0.1, 1e-9)
            low = zero && low >= 0 ? Swift.min(low, 0) : low - pad
            high += pad
        }
        // A power of ten, doubled or times five when that comes closer to `target` steps (the
        // thresholds are the geometric means between the candidates, as d3's ticks choose).
        let raw = (high - low) / Double(Swift.max(target, 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let error = raw / magnitude
        let multiple: Double = error >= 50.squareRoot() ? 10 : error >= 10.squareRoot() ? 5 : error >= 2.squareRoot() ? 2 : 1
        let step = multiple * magnitude
        self.step = step
        self.low = Self.clean((low / step * (1 + 1e-12)).rounded(.down) * step, step)
        self.high = Self.clean((high / step * (1 - 1e-12)).rounded(.up) * step, step)
        decimals = Swift.max(0, Int(-(log10(step) + 1e-9).rounded(.down)))
    }

    /// Every tick from `low` to `high`.
    public var ticks: [Double] {
        let count = Int(((high - low) / step).rounded())
        return (0...Swift.max(count, 0)).map { Self.clean(low + Double($0) * step, step) }
    }

    /// Where `value` falls between the ends, 0 at `low` and 1 at `high`.
    public func fraction(_ value: Double) -> Double { high == low ? 0 : (value - low) / (high - low) }

    /// A multiple of a step without the binary noise of repeated addition (0.30000000000000004).
    static func clean(_ value: Double, _ step: Double) -> Double {
        let scale = pow(10, Double(Swift.max(0, Int(-(log10(step)).rounded(.down)) + 2)))
        let cleaned = (value * scale).rounded() / scale
        return cleaned == 0 ? 0 : cleaned
    }
}
