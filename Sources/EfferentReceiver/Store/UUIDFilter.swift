import EfferentWriter

/// A Bloom filter over HealthKit UUIDs: `mayContain` is false only for a UUID never added, so a
/// new sample's UUID (every one of a backfill) is known new without a B-tree lookup.
///
/// UUIDs are random, so their own two halves serve as the two hashes the filter's four probes are
/// made from (Kirsch and Mitzenmacher, "Less hashing, same performance", 2006). Ten bits a UUID
/// and four probes leave about 1 % of new UUIDs to be looked up anyway; a decade of samples
/// (10 million) takes 12 MB.
struct UUIDFilter {
    private var words: [UInt64]
    private let bits: UInt64
    /// UUIDs added, and how many the filter was sized for.
    private(set) var count = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1 << 16)
        bits = UInt64(self.capacity) * 10
        words = Array(repeating: 0, count: Int(bits / 64) + 1)
    }

    mutating func add(_ uuid: PulsUUID) {
        count += 1
        let (first, second) = Self.halves(uuid)
        for probe in 0..<4 {
            let bit = position(first &+ UInt64(probe) &* second)
            words[Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    func mayContain(_ uuid: PulsUUID) -> Bool {
        let (first, second) = Self.halves(uuid)
        for probe in 0..<4 {
            let bit = position(first &+ UInt64(probe) &* second)
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }

    /// `hash` scaled into 0..<bits (a multiply, not a division).
    private func position(_ hash: UInt64) -> UInt64 {
        hash.multipliedFullWidth(by: bits).high
    }

    private static func halves(_ uuid: PulsUUID) -> (UInt64, UInt64) {
        let (first, second) = uuid.halves
        return (first, second | 1)
    }
}
