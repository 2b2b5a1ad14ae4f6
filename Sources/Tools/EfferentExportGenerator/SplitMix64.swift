/// A 64-bit SplitMix generator: every figure in a generated export comes from one of these, so a
/// seed fixes the export byte for byte (house style: seeded randomness).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one stream of one day, independent of every other (type, source, day).
    init(seed: UInt64, day: Int, stream: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: day) &* 0x9E37_79B9_7F4A_7C15) ^ (stream &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
