/// Unix seconds as the UTC text `YYYY-MM-DDTHH:MM:SSZ` that expanded events and ids carry
/// (protocol §3.2 rule 2). Written by hand: a decade expands to about two million instants.
public enum ISOInstant {
    /// The text of `seconds`, which must lie within years 0001…9999 (`DayEvent`'s range;
    /// instants outside it are clamped to that range's ends).
    public static func text(_ seconds: Int64) -> String {
        var writer = JSONWriter(reservingCapacity: 20)
        write(seconds, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Unix seconds of `YYYY-MM-DDTHH:MM:SS` followed by `Z` (optionally with a fraction, which is
    /// dropped: instants are whole seconds), or nil for any other text.
    public static func seconds(_ text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes.last == UInt8(ascii: "Z"), let day = CalendarDay(ascii: bytes[0..<10]) else { return nil }
        func two(_ at: Int) -> Int64? {
            let high = bytes[at], low = bytes[at + 1]
            guard (0x30...0x39).contains(high), (0x30...0x39).contains(low) else { return nil }
            return Int64(high - 0x30) * 10 + Int64(low - 0x30)
        }
        guard let hour = two(11), let minute = two(14), let second = two(17), hour < 24, minute < 60, second < 61 else { return nil }
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21,
                  bytes[20..<(bytes.count - 1)].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        }
        return day.startUnixSeconds + hour * 3600 + minute * 60 + second
    }

    /// Unix seconds of an instant as people write it and as every table prints it: the protocol's
    /// `…Z`, or a local time with its offset (`2017-12-31T09:02:15+01:00`, `+0100`, `-05`), a
    /// fraction dropped; nil for any other text (a time without zone or offset names no instant).
    public static func secondsWritten(_ text: some StringProtocol) -> Int64? {
        if let utc = seconds(text) { return utc }
        let bytes = Array(text.utf8)
        guard bytes.count >= 22 else { return nil }
        // The offset starts at the last sign after the time's seconds.
        guard let sign = bytes[19...].lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) else { return nil }
        let digits = bytes[(sign + 1)...].filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        // Where a colon is, it sits between the hours and the minutes.
        if bytes[(sign + 1)...].contains(UInt8(ascii: ":")) && (bytes.count - sign != 6 || bytes[sign + 3] != UInt8(ascii: ":")) { return nil }
        let hours = Int64(digits[0] - 0x30) * 10 + Int64(digits[1] - 0x30)
        let minutes = digits.count == 4 ? Int64(digits[2] - 0x30) * 10 + Int64(digits[3] - 0x30) : 0
        guard hours <= 18, minutes < 60 else { return nil }
        guard let wall = seconds(String(decoding: bytes[..<sign], as: UTF8.self) + "Z") else { return nil }
        let offset = (hours * 3600 + minutes * 60) * (bytes[sign] == UInt8(ascii: "-") ? -1 : 1)
        return wall - offset
    }

    /// Appends `seconds`' text as a JSON string, quotes included, with no String in between.
    public static func writeString(_ seconds: Int64, into writer: inout JSONWriter) {
        writer.raw(byte: UInt8(ascii: "\""))
        write(seconds, into: &writer)
        writer.raw(byte: UInt8(ascii: "\""))
    }

    /// The length of every instant's text: years are four digits (0001…9999, `DayEvent`'s range).
    static let length = 20

    /// Appends the 20 bytes of `seconds`' text, without quotes, at once rather than a byte at a
    /// time (a decade with every type expands to 29 million rows, each written twice).
    public static func write(_ seconds: Int64, into writer: inout JSONWriter) {
        writer.append(room: length) { write(seconds, into: &$0) }
    }

    /// Appends the 20 bytes of `seconds`' text to `out`, which must have room for them.
    @inline(__always)
    static func write(_ seconds: Int64, into out: inout OutputSpan<UInt8>) {
        let clamped = min(max(seconds, DayEvent.earliestSecond), DayEvent.latestSecond)
        // Floor division, so the second of the day needs no way back from the date.
        let days = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        let day = CalendarDay(daysSinceEpoch: days)
        let second = Int(clamped - days * 86_400)
        digits(day.year, 4, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(day.month, 2, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(day.day, 2, into: &out)
        out.append(UInt8(ascii: "T"))
        digits(second / 3600, 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(second % 60, 2, into: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// `value` (0 ≤ value < 10^width) zero-padded to `width` digits, appended to `out`.
    @inline(__always)
    private static func digits(_ value: Int, _ width: Int, into out: inout OutputSpan<UInt8>) {
        let first = out.count
        out.append(repeating: 0x30, count: width)
        var rest = value
        for at in stride(from: first + width - 1, through: first, by: -1) {
            out[at] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
            rest /= 10
        }
    }
}
