import EfferentCore

/// An instant as local ISO text with its UTC offset, `2025-06-01T07:30:00+02:00`: what the SQL
/// export's time columns hold (the `events` view computes the same text in SQLite).
enum LocalInstant {
    /// The text of Unix `seconds` shown `offset` seconds east of UTC (`+00:00` for UTC).
    static func iso(_ seconds: Int64, offset: Int64) -> String {
        let local = seconds + offset
        let day = CalendarDay(unixSeconds: local)
        let second = Int(local - day.startUnixSeconds), magnitude = Int(abs(offset))
        // Written digit by digit: an export writes one for every route fix.
        var bytes = [UInt8]()
        bytes.reserveCapacity(25)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / divisor % 10))
                divisor /= 10
            }
        }
        digits(day.year, 4); bytes.append(0x2D); digits(day.month, 2); bytes.append(0x2D); digits(day.day, 2)
        bytes.append(0x54); digits(second / 3600, 2); bytes.append(0x3A); digits(second / 60 % 60, 2); bytes.append(0x3A); digits(second % 60, 2)
        bytes.append(offset < 0 ? 0x2D : 0x2B); digits(magnitude / 3600, 2); bytes.append(0x3A); digits(magnitude % 3600 / 60, 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of `seconds` in the zone `identifier` (UTC when nil), zones looked up by `clock`.
    static func iso(_ seconds: Int64, in identifier: String?, clock: LocalClock) throws(AnswerError) -> String {
        iso(seconds, offset: try clock.zone(identifier).offset(at: Double(seconds)))
    }
}
