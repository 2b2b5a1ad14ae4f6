import Foundation

/// The days an export covers, in the person's zone (Europe/Paris), and the one offset Apple writes
/// on every date: the phone's offset at export time (§1.4).
struct ExportTimeline: Sendable {
    static let zoneIdentifier = "Europe/Paris"

    /// Days since 1970 of the first day with data.
    let firstDay: Int
    let dayCount: Int
    /// The instant of each day's local midnight, one more than `dayCount` (the day after the last).
    let midnights: [Int64]
    /// The export instant: 09:30 local on the morning after the last day.
    let exportInstant: Int64
    /// Seconds east of UTC written on every date in the file.
    let exportOffset: Int
    private let zone: TimeZone

    init(options: ExportOptions) {
        let last = options.lastDay
        let first = options.days.map { last.daysSinceEpoch - $0 + 1 }
            ?? LocalDate(year: last.year - options.years, month: last.month, day: last.day).daysSinceEpoch + 1
        firstDay = first
        dayCount = last.daysSinceEpoch - first + 1
        let zone = TimeZone(identifier: Self.zoneIdentifier) ?? TimeZone(secondsFromGMT: 3600) ?? .current
        self.zone = zone
        var midnights = [Int64]()
        midnights.reserveCapacity(dayCount + 2)
        for index in 0...(dayCount + 1) {
            let utcMidnight = Int64(first + index) * 86400
            // The offset two hours before UTC midnight is the one in force at local midnight.
            let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(utcMidnight - 7200)))
            midnights.append(utcMidnight - Int64(offset))
        }
        self.midnights = midnights
        exportInstant = midnights[dayCount] + 9 * 3600 + 30 * 60
        exportOffset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(exportInstant)))
    }

    func date(ofDay index: Int) -> LocalDate { LocalDate(daysSinceEpoch: firstDay + index) }

    /// Where day `index` sits in the range, 0 (first) to just under 1 (last): the eras of devices
    /// and export formats are fractions of the range, so a one-year export shows them all.
    func fraction(ofDay index: Int) -> Double { Double(index) / Double(dayCount) }

    /// The zone's true offset at `instant` (for GPX file names, which are DST-correct).
    func localOffset(at instant: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
    }
}
