import EfferentTestSupport

/// A seeded SplitMix64 (style habit 14), so a mangled input that traps replays exactly.
typealias SeededBytes = SplitMix64

extension SplitMix64 {
    /// `input` with a few bytes flipped, dropped, duplicated or replaced by markup characters.
    mutating func mangle(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let markup: [UInt8] = Array("<>/=\"'&;#!?-[]\n\u{0B}\0".utf8)
        for _ in 0..<Int.random(in: 1...6, using: &self) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &self)
            switch Int.random(in: 0..<5, using: &self) {
            case 0: bytes[at] ^= UInt8.random(in: 1...255, using: &self)
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(bytes[at], at: at)
            case 3: bytes[at] = markup[Int.random(in: 0..<markup.count, using: &self)]
            default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &self)))
            }
        }
        return bytes
    }
}
