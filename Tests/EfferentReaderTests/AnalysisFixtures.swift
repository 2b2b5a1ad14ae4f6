import EfferentTestSupport
import EfferentCore
@testable import EfferentReader

/// Small archives built by hand for the answer tests.
enum Fixture {
    /// Unix seconds of `YYYY-MM-DDTHH:MM:SSZ`.
    static func at(_ iso: String) -> Int64 {
        let chars = Array(iso)
        func number(_ from: Int, _ count: Int) -> Int64 { Int64(String(chars[from..<from + count]))! }
        return CalendarDay(String(chars[0..<10]))!.startUnixSeconds + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2)
    }

    static func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

    static func range(_ since: String, _ until: String) throws -> DayRange { try DayRange(since: day(since), until: day(until)) }

    static func sleep(_ day: String, _ tz: String? = nil, _ start: String, _ end: String, _ stage: String,
                      source: String = "Watch") throws -> ArchiveEvent {
        let event = try DayEvent(kind: .record, metric: "sleep", source: source, start: at(start), end: at(end), stage: stage)
        return ArchiveEvent(day: Self.day(day), timeZone: tz, id: "hk:sleep:\(start)", event: event)
    }

    static func reading(_ metric: String, _ day: String, _ tz: String? = nil, _ start: String, _ value: Double,
                        unit: String = "count/min", source: String = "Watch") throws -> ArchiveEvent {
        let event = try DayEvent(kind: .record, metric: metric, unit: unit, source: source, start: at(start), end: at(start), value: value)
        return ArchiveEvent(day: Self.day(day), timeZone: tz, id: "hk:\(metric):\(start)", event: event)
    }

    /// A day total starting at the UTC midnight of `day`.
    static func total(_ metric: String, _ day: String, _ value: Double, unit: String = "count",
                      bucket: DayEvent.Bucket = .day) throws -> ArchiveEvent {
        let start = Self.day(day).startUnixSeconds
        let event = try DayEvent(kind: .total, metric: metric, bucket: bucket, unit: unit, start: start,
                                 end: start + (bucket == .day ? 86_400 : 3600), value: value)
        return ArchiveEvent(day: Self.day(day), timeZone: nil, id: "agg:\(metric):\(day)", event: event)
    }

    static func workout(_ day: String, _ tz: String? = nil, _ start: String, minutes: Double, activity: String?,
                        source: String = "Watch") throws -> ArchiveEvent {
        let event = try DayEvent(kind: .record, metric: "workout", source: source, start: at(start),
                                 end: at(start) + Int64(minutes * 60), activity: activity, duration: minutes * 60)
        return ArchiveEvent(day: Self.day(day), timeZone: tz, id: "hk:workout:\(start)", event: event)
    }

    static func json(_ answer: some Answer) throws -> String {
        String(decoding: try answer.json.canonicalBytes(), as: UTF8.self)
    }
}

