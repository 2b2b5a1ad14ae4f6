import EfferentCore

/// Instants as the service writes them: `toISOString()` form, UTC with milliseconds
/// (`2026-08-27T10:11:12.345Z`), and HTTP dates for `Last-Modified`.
public enum ISOTime {
    public static func milliseconds(_ ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        let day = CalendarDay(unixSeconds: seconds)
        let inDay = Int(seconds - day.startUnixSeconds)
        var bytes = day.ascii
        bytes.reserveCapacity(24)
        func two(_ n: Int) { bytes.append(UInt8(0x30 + n / 10)); bytes.append(UInt8(0x30 + n % 10)) }
        bytes.append(UInt8(ascii: "T"))
        two(inDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        two(inDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        two(inDay % 60)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(0x30 + millis / 100))
        two(millis % 100)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func httpDate(_ ms: Int64) -> String {
        let seconds = ms / 1000
        let day = CalendarDay(unixSeconds: seconds)
        let inDay = seconds - day.startUnixSeconds
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[Int(((day.daysSinceEpoch % 7) + 7) % 7)]
        return "\(weekday), \(pad(Int64(day.day))) \(months[day.month - 1]) \(day.year) "
            + "\(pad(inDay / 3600)):\(pad(inDay / 60 % 60)):\(pad(inDay % 60)) GMT"
    }

    private static func pad(_ n: Int64, _ width: Int = 2) -> String {
        let text = String(n)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
