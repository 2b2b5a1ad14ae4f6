import EfferentCore
import EfferentCrypto

/// A checksum of derived data: BLAKE2b in 16 bytes (libsodium's `crypto_generichash`, its shortest
/// output, https://doc.libsodium.org/hashing/generic_hashing), held as two words so thousands of
/// them compare without an array each. It guards against a disk's or a person's accidents, not a
/// forger: whoever can write `index.bin` can write the days it was read from.
struct Checksum: Sendable, Hashable {
    static let byteCount = 16
    let high: UInt64
    let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The checksum of `bytes`.
    init(of bytes: some SodiumBytes) {
        self.init(digest: Sodium.genericHash(bytes, length: Self.byteCount)[...])!
    }

    /// From the 16 bytes a file holds; nil when there are not 16.
    init?(digest: ArraySlice<UInt8>) {
        guard digest.count == Self.byteCount else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (offset, byte) in digest.enumerated() {
            if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// The 16 bytes, as a file holds them.
    var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    /// Lower-case hex, as `mirror.json` records a day's.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// From 32 hex digits; nil for anything else.
    init?(hex text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 32 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var at = 0
        while at < 32 {
            guard let high = nibble(utf8[at]), let low = nibble(utf8[at + 1]) else { return nil }
            bytes.append(high << 4 | low)
            at += 2
        }
        self.init(digest: bytes[...])
    }
}

/// Writes the index's integers, numbers and strings: zigzag LEB128 integers (small numbers of
/// either sign in a byte or two), real numbers as their 8-byte bit patterns (so a sum reads back
/// to the same bits), strings as their number in the file's table.
struct IndexWriter {
    var bytes = [UInt8]()
    var strings = IndexStrings()

    mutating func int64(_ value: Int64) {
        var v = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func int(_ value: Int) { int64(Int64(value)) }

    mutating func double(_ value: Double) {
        var v = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    mutating func string(_ text: String) { int(strings.number(text)) }

    mutating func optional(_ text: String?) {
        if let text {
            bytes.append(1)
            string(text)
        } else {
            bytes.append(0)
        }
    }

    /// A string's own bytes, its length first (the table itself, and upload times).
    mutating func text(_ text: String) {
        int(text.utf8.count)
        bytes += text.utf8
    }
}

/// The strings the encoded days name, each numbered once in the order first written; the numbers
/// are stable, so a day encoded with them stays readable as others are added.
struct IndexStrings: Sendable {
    private(set) var list = [String]()
    private var numbers = [String: Int]()

    init() {}

    /// The table of a file; nil when it names a string twice (no writer does).
    init?(list: [String]) {
        for text in list {
            guard numbers[text] == nil else { return nil }
            numbers[text] = self.list.count
            self.list.append(text)
        }
    }

    mutating func number(_ text: String) -> Int {
        if let known = numbers[text] { return known }
        numbers[text] = list.count
        list.append(text)
        return list.count - 1
    }

    func known(_ text: String) -> Int? { numbers[text] }
}

/// Reads what `IndexWriter` wrote, refusing rather than trusting: every read is bounds-checked,
/// and every count is held to what the bytes left could hold before anything is reserved for it
/// (a count of 70 billion in a damaged file is a refusal, never an allocation).
struct IndexReader {
    let bytes: ArraySlice<UInt8>
    private(set) var at: Int
    /// The file's strings, each read once: a decade repeats a few dozen names hundreds of thousands of times.
    let table: [String]

    init(bytes: ArraySlice<UInt8>, table: [String] = []) {
        self.bytes = bytes
        at = bytes.startIndex
        self.table = table
    }

    var atEnd: Bool { at == bytes.endIndex }
    var remaining: Int { bytes.endIndex - at }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { at += count }
        return bytes[at..<(at + count)]
    }

    mutating func byte() -> UInt8? {
        guard at < bytes.endIndex else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func int64() -> Int64? {
        var v: UInt64 = 0, shift: UInt64 = 0
        while let byte = byte() {
            // The tenth byte holds the top bit alone: anything more is not a 64-bit number.
            if shift == 63 && byte > 1 { return nil }
            v |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    mutating func int() -> Int? { int64().flatMap { Int(exactly: $0) } }

    /// A count of things that take at least `size` bytes each: refused when negative or when the
    /// bytes left could not hold that many.
    mutating func count(each size: Int = 1) -> Int? {
        guard let n = int(), n >= 0, n <= remaining / max(1, size) else { return nil }
        return n
    }

    /// A count or size that is at least zero.
    mutating func natural() -> Int? {
        guard let n = int(), n >= 0 else { return nil }
        return n
    }

    /// An instant (Unix seconds) an event may name: years 0001…9999.
    mutating func instant() -> Int64? {
        guard let value = int64(), value >= DayEvent.earliestSecond, value <= DayEvent.latestSecond else { return nil }
        return value
    }

    /// A day number `CalendarDay` holds as it is (years 0001…9999, which it would otherwise clamp to).
    mutating func day() -> CalendarDay? {
        guard let value = int64(), value >= -719_162, value <= 2_932_896 else { return nil }
        return CalendarDay(daysSinceEpoch: value)
    }

    /// A number of events or readings: one at least, and at most 2^32 (a day body inflates to 16
    /// MiB at most), so a decade of them adds up without overflowing.
    mutating func tally() -> Int? {
        guard let n = int(), n >= 1, n <= 1 << 32 else { return nil }
        return n
    }

    mutating func double() -> Double? {
        guard remaining >= 8 else { return nil }
        var v: UInt64 = 0
        for shift in 0..<8 { v |= UInt64(bytes[at + shift]) << (8 * UInt64(shift)) }
        at += 8
        return Double(bitPattern: v)
    }

    /// A value one event carried: finite.
    mutating func finite() -> Double? {
        guard let value = double(), value.isFinite else { return nil }
        return value
    }

    mutating func string() -> String? {
        guard let number = int(), number >= 0, number < table.count else { return nil }
        return table[number]
    }

    /// `nil` inside: an absent string; the outer nil: bytes that do not read.
    mutating func optional() -> String?? {
        switch byte() {
        case 0?: return .some(nil)
        case 1?: return string().map { .some($0) }
        default: return nil
        }
    }

    /// A string's own bytes, its length first: valid UTF-8 or nothing.
    mutating func text() -> String? {
        guard let length = count(), let slice = take(length) else { return nil }
        return String(validating: slice, as: UTF8.self)
    }

    mutating func flag() -> Bool? {
        switch byte() {
        case 0?: return false
        case 1?: return true
        default: return nil
        }
    }
}
