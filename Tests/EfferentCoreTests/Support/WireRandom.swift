import EfferentTestSupport

/// The wire property tests' seeded generator (style habit 14), so a failure replays.
typealias WireRandom = SplitMix64

extension SplitMix64 {
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
