import EfferentTestSupport

extension SplitMix64 {
    /// A generator for one stream of one day, independent of every other (type, source, day).
    init(seed: UInt64, day: Int, stream: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: day) &* 0x9E37_79B9_7F4A_7C15) ^ (stream &* 0xD1B5_4A32_D192_ED03))
        self.init(seed: mixer.next())
    }

    /// A whole number in `range`, without `Int.random`'s rejection loop (bias is negligible here).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next() % span)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1p-53 < p
    }
}
