import EfferentCore

/// `200 {"stored":[…],"bytes":n}` (§5.4): only the named days were stored.
public struct UploadAnswer: Sendable, Equatable {
    public let stored: [CalendarDay]
    public let bytes: Int
}

/// One entry of the listing (§6): a day, its sealed size, and its upload time as the service
/// writes it (an opaque string to compare, `toISOString()` form).
public struct ListedDay: Sendable, Equatable {
    public let day: CalendarDay
    public let bytes: Int
    public let uploaded: String

    public init(day: CalendarDay, bytes: Int, uploaded: String) {
        self.day = day
        self.bytes = bytes
        self.uploaded = uploaded
    }
}

public struct ListingPage: Sendable, Equatable {
    public let days: [ListedDay]
    public let next: CalendarDay?

    init(json bytes: [UInt8]) throws(ArchiveError) {
        guard let json = try? JSONParser.parse(bytes), let list = json["days"]?.arrayValue else {
            throw .unexpectedAnswer("a listing without a days list")
        }
        var days = [ListedDay]()
        days.reserveCapacity(list.count)
        for entry in list {
            guard let day = entry["day"]?.stringValue.flatMap({ CalendarDay($0) }), let size = entry["bytes"]?.integerValue,
                  let uploaded = entry["uploaded"]?.stringValue else {
                throw .unexpectedAnswer("a listing entry without day, bytes and uploaded")
            }
            if let last = days.last, last.day >= day { throw .unexpectedAnswer("a listing whose days do not ascend") }
            days.append(ListedDay(day: day, bytes: Int(size), uploaded: uploaded))
        }
        switch json["next"] {
        case nil, .null?: next = nil
        case let .string(text)?:
            guard let day = CalendarDay(text) else { throw .unexpectedAnswer("a listing whose next is not a day") }
            next = day
        default: throw .unexpectedAnswer("a listing whose next is not a day")
        }
        self.days = days
    }
}

/// `GET /stats` (§6): `complete:false` means the counts are a floor.
public struct ArchiveStats: Sendable, Equatable {
    public let exists: Bool
    public let days: Int
    public let bytes: Int64
    public let firstDay: CalendarDay?
    public let lastDay: CalendarDay?
    public let complete: Bool

    init(json bytes: [UInt8]) throws(ArchiveError) {
        guard let json = try? JSONParser.parse(bytes), let exists = json["exists"], case let .bool(flag) = exists,
              let days = json["days"]?.integerValue, let size = json["bytes"]?.integerValue else {
            throw .unexpectedAnswer("stats without exists, days and bytes")
        }
        self.exists = flag
        self.days = Int(days)
        self.bytes = size
        firstDay = json["firstDay"]?.stringValue.flatMap { CalendarDay($0) }
        lastDay = json["lastDay"]?.stringValue.flatMap { CalendarDay($0) }
        if case let .bool(complete)? = json["complete"] { self.complete = complete } else { self.complete = true }
    }
}

/// One range answer (§6): the days, and where to continue when more remain.
public struct RangeAnswer: Sendable, Equatable {
    public let days: [Frame.Day]
    public let next: CalendarDay?
}
