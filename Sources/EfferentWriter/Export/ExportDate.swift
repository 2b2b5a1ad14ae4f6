/// Parses the dates exports carry into Unix seconds, by hand: a large export holds tens of
/// millions of them and `DateFormatter` would dominate the import.
enum ExportDate {
    /// What a date attribute turned out to be.
    enum Outcome {
        case instant(Double)
        /// iOS 8's compact `20150616071916-0700`.
        case compact
        case unreadable
    }

    /// `yyyy-MM-dd HH:mm:ss ±HHMM` (apple-health-export.md §1.4); a `T` separator and a `±HH:MM`
    /// offset are accepted too.
    static func appleHealth(_ raw: ArraySlice<UInt8>) -> Outcome {
        let b = raw.startIndex
        guard raw.count >= 25 else { return isCompact(raw) ? .compact : .unreadable }
        guard raw[b + 4] == 0x2D, raw[b + 7] == 0x2D, raw[b + 10] == 0x20 || raw[b + 10] == 0x54,
              raw[b + 13] == 0x3A, raw[b + 16] == 0x3A, raw[b + 19] == 0x20,
              let year = digits(raw, b, 4), let month = digits(raw, b + 5, 2), let day = digits(raw, b + 8, 2),
              let hour = digits(raw, b + 11, 2), let minute = digits(raw, b + 14, 2), let second = digits(raw, b + 17, 2)
        else { return .unreadable }
        let sign = raw[b + 20]
        guard sign == 0x2B || sign == 0x2D, let offsetHours = digits(raw, b + 21, 2) else { return .unreadable }
        let minutesAt = raw.count == 26 && raw[b + 23] == 0x3A ? b + 24 : b + 23
        guard raw.count == (minutesAt - b) + 2, let offsetMinutes = digits(raw, minutesAt, 2) else { return .unreadable }
        // Real offsets run from −12:00 to +14:00 in whole quarter hours at most; `+9999` is no place on Earth.
        guard offsetHours <= 14, offsetMinutes < 60 else { return .unreadable }
        guard let local = localSeconds(year, month, day, hour, minute, second) else { return .unreadable }
        let offset = (offsetHours * 3600 + offsetMinutes * 60) * (sign == 0x2D ? -1 : 1)
        return .instant(Double(local - offset))
    }

    /// The offset of an `appleHealth` date in seconds east of UTC (`+0200` → 7200), or nil.
    static func offsetSeconds(_ raw: ArraySlice<UInt8>) -> Int? {
        let b = raw.startIndex
        guard raw.count >= 25, let hours = digits(raw, b + 21, 2) else { return nil }
        let minutesAt = raw.count == 26 && raw[b + 23] == 0x3A ? b + 24 : b + 23
        guard raw.count >= (minutesAt - b) + 2, let minutes = digits(raw, minutesAt, 2) else { return nil }
        switch raw[b + 20] {
        case 0x2B: return hours * 3600 + minutes * 60
        case 0x2D: return -(hours * 3600 + minutes * 60)
        default: return nil
        }
    }

    /// A time of day as the export's locale writes beat times (`00:20:37,80`, `10:13:58.26 PM`,
    /// `3:10:02,11 AM`, `20:14:07.68`), in seconds since midnight, or nil.
    static func timeOfDay(_ raw: ArraySlice<UInt8>) -> Double? {
        var parts = [Int](), fraction = 0.0, scale = 0.1
        var current = -1, inFraction = false, index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte >= 0x30, byte <= 0x39 {
                if inFraction { fraction += Double(byte - 0x30) * scale; scale /= 10 } else { current = max(current, 0) * 10 + Int(byte - 0x30) }
            } else if byte == 0x3A, !inFraction, current >= 0 {
                parts.append(current); current = -1
            } else if (byte == 0x2E || byte == 0x2C), parts.count == 2, current >= 0 {
                inFraction = true
            } else {
                break
            }
            index += 1
        }
        guard current >= 0, parts.count == 2 else { return nil }
        parts.append(current)
        var hour = parts[0]
        let marker = raw[index...].filter { $0 != 0x20 && $0 != 0x2E }.map { $0 | 0x20 }
        if marker == Array("am".utf8) || marker == Array("pm".utf8) {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (marker == Array("pm".utf8) ? 12 : 0)
        } else if !marker.isEmpty {
            return nil
        }
        guard hour < 24, parts[1] < 60, parts[2] < 61 else { return nil }
        return Double(hour * 3600 + parts[1] * 60 + parts[2]) + fraction
    }

    /// `yyyy-MM-ddTHH:mm:ss[.fff]Z` (GPX `<time>`, Efferent's layout-1 lines).
    static func isoUTC(_ raw: ArraySlice<UInt8>) -> Double? {
        let b = raw.startIndex
        guard raw.count >= 20, raw.last == 0x5A, raw[b + 4] == 0x2D, raw[b + 7] == 0x2D, raw[b + 10] == 0x54,
              raw[b + 13] == 0x3A, raw[b + 16] == 0x3A,
              let year = digits(raw, b, 4), let month = digits(raw, b + 5, 2), let day = digits(raw, b + 8, 2),
              let hour = digits(raw, b + 11, 2), let minute = digits(raw, b + 14, 2), let second = digits(raw, b + 17, 2),
              let whole = localSeconds(year, month, day, hour, minute, second)
        else { return nil }
        var fraction = 0.0
        if raw.count > 20 {
            guard raw[b + 19] == 0x2E, raw.count > 21 else { return nil }
            var scale = 0.1
            for byte in raw[(b + 20)..<(raw.endIndex - 1)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                fraction += Double(byte - 0x30) * scale
                scale /= 10
            }
        }
        return Double(whole) + fraction
    }

    /// Seconds from 1970-01-01T00:00:00 to the given wall-clock time read as UTC, or nil when a field is out of range.
    static func localSeconds(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Int? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month, year), hour < 24, minute < 60, second <= 60 else { return nil }
        return daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    @inline(__always)
    private static func digits(_ raw: ArraySlice<UInt8>, _ at: Int, _ count: Int) -> Int? {
        var value = 0
        for index in at..<(at + count) {
            let d = Int(raw[index]) - 0x30
            guard d >= 0, d <= 9 else { return nil }
            value = value * 10 + d
        }
        return value
    }

    /// 14 digits, a sign, 4 digits: `20150616071916-0700`.
    private static func isCompact(_ raw: ArraySlice<UInt8>) -> Bool {
        guard raw.count == 19 else { return false }
        let b = raw.startIndex
        let sign = raw[b + 14]
        return (sign == 0x2B || sign == 0x2D) && digits(raw, b, 14) != nil && digits(raw, b + 15, 4) != nil
    }
}
