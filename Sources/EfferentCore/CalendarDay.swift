/// A day as the protocol names it: `YYYY-MM-DD`, a real date of the proleptic Gregorian calendar
/// (protocol §5.1, §9.3). Days order as their text does.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A real calendar date in years 0001…9999, or `nil`.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CalendarDay.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly ten ASCII characters `YYYY-MM-DD` naming a real date; anything else is `nil`.
    @inlinable
    public init?(_ text: some StringProtocol) {
        self.init(ascii: text.utf8)
    }

    /// Parses the ten bytes `YYYY-MM-DD` (a frame's day field, a stored key) without making a string.
    /// Inlinable, so callers in other modules get it specialised for their collection rather than
    /// through generic metadata lookups (which cost more than the parse on every range answer).
    @inlinable
    public init?<Bytes: Collection<UInt8>>(ascii bytes: Bytes) {
        guard bytes.count == 10 else { return nil }
        var fields = (0, 0, 0)
        for (offset, byte) in bytes.enumerated() {
            if offset == 4 || offset == 7 {
                guard byte == 0x2D else { return nil }
                continue
            }
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = Int(byte - 0x30)
            switch offset {
            case 0..<4: fields.0 = fields.0 * 10 + digit
            case 5..<7: fields.1 = fields.1 * 10 + digit
            default: fields.2 = fields.2 * 10 + digit
            }
        }
        self.init(year: fields.0, month: fields.1, day: fields.2)
    }

    /// The day holding the Unix instant `seconds` in UTC.
    public init(unixSeconds seconds: Int64) {
        // Floor division written so that no instant overflows (`seconds - 86_399` traps at
        // Int64.min, which an agent's argument can be); the result is clamped to years 0001…9999.
        let (quotient, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
        self.init(daysSinceEpoch: remainder < 0 ? quotient - 1 : quotient)
    }

    /// The day `days` after 1970-01-01 (negative before it); clamped to years 0001…9999.
    public init(daysSinceEpoch days: Int64) {
        // Howard Hinnant's civil_from_days (http://howardhinnant.github.io/date_algorithms.html).
        // Once clamped, every quantity is non-negative and below 2^22, so unsigned 32-bit
        // arithmetic that cannot overflow gives the same values without signed division or
        // overflow checks (every expanded instant comes through here).
        let z = UInt32(min(max(days, -719_162), 2_932_896) + 719_468)
        let era = z / 146_097
        let doe = z &- era &* 146_097
        let yoe = (doe &- doe / 1460 &+ doe / 36524 &- doe / 146_096) / 365
        let doy = doe &- (365 &* yoe &+ yoe / 4 &- yoe / 100)
        let mp = (5 &* doy &+ 2) / 153
        let d = doy &- (153 &* mp &+ 2) / 5 &+ 1
        let m = mp < 10 ? mp &+ 3 : mp &- 9
        let y = yoe &+ era &* 400 &+ (m <= 2 ? 1 : 0)
        self.year = Int(y)
        self.month = Int(m)
        self.day = Int(d)
    }

    /// Days from 1970-01-01 to this day.
    public var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Unix seconds of this day's midnight in UTC.
    public var startUnixSeconds: Int64 { daysSinceEpoch * 86_400 }

    public func adding(days: Int) -> CalendarDay { CalendarDay(daysSinceEpoch: daysSinceEpoch + Int64(days)) }
    public var next: CalendarDay { adding(days: 1) }
    public var previous: CalendarDay { adding(days: -1) }

    public var description: String { String(decoding: ascii, as: UTF8.self) }

    /// The ten ASCII bytes of `YYYY-MM-DD`, written without string formatting (frames and
    /// listings write thousands of days per answer).
    public var ascii: [UInt8] {
        var out = [UInt8](repeating: 0x2D, count: 10)
        var y = year
        for index in (0..<4).reversed() {
            out[index] = UInt8(truncatingIfNeeded: 0x30 + y % 10)
            y /= 10
        }
        out[5] = UInt8(truncatingIfNeeded: 0x30 + month / 10)
        out[6] = UInt8(truncatingIfNeeded: 0x30 + month % 10)
        out[8] = UInt8(truncatingIfNeeded: 0x30 + day / 10)
        out[9] = UInt8(truncatingIfNeeded: 0x30 + day % 10)
        return out
    }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = CalendarDay(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a YYYY-MM-DD date"))
        }
        self = day
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
