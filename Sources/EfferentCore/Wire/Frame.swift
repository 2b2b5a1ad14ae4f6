/// The frame: the body of an upload and of a range answer (protocol §5.1).
///
/// A run of
/// `10-byte day ‖ 4-byte big-endian length n ‖ n bytes of sealed day` with no header and no count
/// (protocol §5.1).
///
/// Packer and unpacker hold the same rules: every day a real date, days strictly ascending, every
/// blob non-empty, nothing left over. Unpacking hands back slices of the body, never copies.
public enum Frame {
    /// §5.1: `YYYY-MM-DD`.
    public static let dayBytes = 10
    /// §5.1: the length field.
    public static let lengthBytes = 4

    /// One day of a frame and its sealed blob.
    public struct Day: Equatable, Sendable {
        public let day: CalendarDay
        public let sealed: ArraySlice<UInt8>

        public init(day: CalendarDay, sealed: ArraySlice<UInt8>) {
            self.day = day
            self.sealed = sealed
        }

        public init(day: CalendarDay, sealed: [UInt8]) { self.init(day: day, sealed: sealed[...]) }
    }

    /// The frame of `days`: at least one, strictly ascending, each blob 1 byte … 4 GiB − 1.
    public static func pack(_ days: [Day]) throws(FrameError) -> [UInt8] {
        guard !days.isEmpty else { throw .noDays }
        var total = 0
        for (index, entry) in days.enumerated() {
            if index > 0, !(days[index - 1].day < entry.day) {
                throw .order(previous: days[index - 1].day.description, next: entry.day.description)
            }
            guard !entry.sealed.isEmpty else { throw .emptyBody(day: entry.day.description) }
            guard entry.sealed.count <= Int(UInt32.max) else { throw .tooLong(day: entry.day.description) }
            total += dayBytes + lengthBytes + entry.sealed.count
        }
        var out = [UInt8]()
        out.reserveCapacity(total)
        for entry in days {
            out.append(contentsOf: entry.day.ascii)
            let n = UInt32(entry.sealed.count)
            out.append(UInt8(n >> 24))
            out.append(UInt8(n >> 16 & 0xFF))
            out.append(UInt8(n >> 8 & 0xFF))
            out.append(UInt8(n & 0xFF))
            out.append(contentsOf: entry.sealed)
        }
        return out
    }

    /// The days of `body`, each blob a slice of it. An empty body is zero days only with
    /// `allowingEmpty` (a range answer may be empty, an upload may not).
    public static func unpack(_ body: ArraySlice<UInt8>, allowingEmpty: Bool = false) throws(FrameError) -> [Day] {
        if body.isEmpty {
            if allowingEmpty { return [] }
            throw .noDays
        }
        var days = [Day]()
        var index = body.startIndex
        while index < body.endIndex {
            let left = body.endIndex - index
            guard left >= dayBytes + lengthBytes else { throw .leftover(count: left) }
            let dayText = body[index..<(index + dayBytes)]
            guard let day = CalendarDay(ascii: dayText) else {
                throw .notADate(text: FrameError.printable(dayText))
            }
            if let previous = days.last, !(previous.day < day) {
                throw .order(previous: previous.day.description, next: day.description)
            }
            var n = 0
            for byte in body[(index + dayBytes)..<(index + dayBytes + lengthBytes)] { n = n << 8 | Int(byte) }
            let blobStart = index + dayBytes + lengthBytes
            guard n > 0 else { throw .emptyBody(day: day.description) }
            let available = body.endIndex - blobStart
            guard n <= available else { throw .short(day: day.description, says: n, has: available) }
            days.append(Day(day: day, sealed: body[blobStart..<(blobStart + n)]))
            index = blobStart + n
        }
        return days
    }

    public static func unpack(_ body: [UInt8], allowingEmpty: Bool = false) throws(FrameError) -> [Day] {
        try unpack(body[...], allowingEmpty: allowingEmpty)
    }
}
