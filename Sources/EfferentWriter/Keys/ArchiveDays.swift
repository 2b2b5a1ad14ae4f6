import EfferentClient
import EfferentCompression
import EfferentCore
import Foundation

/// The archive's own days, read back for a writer restored from a kit: every listed day fetched in
/// ranges, opened with the reading key (or the one a rotation under way replaces), inflated and
/// decoded into what the writer's store keeps — its records, its totals as the day holds them, and
/// the ledger's entry (fingerprint, sealed size, listed time). One range (at most 92 days, 8 MiB
/// sealed) is in memory at a time; `each` takes a range's days before the next is fetched.
public struct ArchiveDays: Sendable {
    /// One day as the archive holds it.
    public struct Day: Sendable {
        public let day: CalendarDay
        /// SHA-256 of the uncompressed body: what the ledger records as accepted.
        public let fingerprint: [UInt8]
        public let sealedBytes: Int
        /// The listing's upload time, for the daily check.
        public let listed: String
        /// The zone the body names (`tz`), nil when it names none.
        public let timeZone: String?
        /// Its records (`hk` rows) and its totals (`agg` rows), in body order.
        public let records: [DayEvent]
        public let totals: [DayEvent]
    }

    /// What reading the archive found.
    public struct Report: Sendable, Equatable {
        public var days = 0
        public var records = 0
        public var totals = 0
        public var requests = 0
        public var bytes = 0
        /// Days that opened only with the reading key a rotation under way replaces.
        public var sealedToPrevious = 0
    }

    let client: ArchiveClient
    let keys: [ReadingKey]

    public init(client: ArchiveClient, reading: ReadingKey, previous: ReadingKey?) {
        self.client = client
        keys = [reading] + (previous.map { [$0] } ?? [])
    }

    /// Reads every day, handing each range's days to `each` in day order.
    public func read(progress: ((Int, Int) -> Void)? = nil, _ each: ([Day]) throws -> Void) async throws -> Report {
        var report = Report()
        let listing = try await client.listing(readKey: keys[0].readKey)
        var listed = [CalendarDay: String]()
        for entry in listing { listed[entry.day] = entry.uploaded }
        let inflater = try Inflater()
        progress?(0, listing.count)
        for span in KeyRotation.spans(listing.map(\.day)) {
            guard let first = span.first, let last = span.last else { continue }
            var days = [Day]()
            var after: CalendarDay?
            repeat {
                let answer = try await client.range(from: first, to: last, after: after, readKey: keys[0].readKey)
                report.requests += 1
                for entry in answer.days {
                    guard let time = listed[entry.day] else { continue }
                    report.bytes += entry.sealed.count
                    days.append(try open(entry, listed: time, inflater: inflater, report: &report))
                }
                after = answer.next
            } while after != nil
            try each(days)
            progress?(report.days, listing.count)
        }
        return report
    }

    func open(_ entry: Frame.Day, listed: String, inflater: Inflater, report: inout Report) throws -> Day {
        let sealed = Array(entry.sealed)
        let aad = EnvelopeAAD.day(bucket: client.bucket.rawValue, day: entry.day)
        var plaintext: [UInt8]?
        for (index, key) in keys.enumerated() where plaintext == nil {
            plaintext = try? SealedEnvelope.open(sealed, with: key.privateKey, aad: aad)
            if plaintext != nil, index > 0 { report.sealedToPrevious += 1 }
        }
        guard let plaintext else { throw ArchiveDaysError.doesNotOpen(entry.day) }
        let body = try DayBody.inflate(plaintext, using: inflater)
        var records = [DayEvent](), totals = [DayEvent]()
        var zone: String?
        switch try body.decoded() {
        case let .columnar(day):
            zone = day.timeZone
            for series in day.series {
                for row in 0..<series.count {
                    let event = series.event(at: row)
                    if event.kind == .total { totals.append(event) } else { records.append(event) }
                }
            }
        case .lines:
            // Layout 1 is read, never written (A.1): a writer of this project never sealed one.
            throw ArchiveDaysError.oldLayout(entry.day)
        }
        report.days += 1
        report.records += records.count
        report.totals += totals.count
        return Day(day: entry.day, fingerprint: body.fingerprint, sealedBytes: sealed.count, listed: listed, timeZone: zone,
                   records: records, totals: totals)
    }
}

public enum ArchiveDaysError: Error, Equatable, CustomStringConvertible {
    case doesNotOpen(CalendarDay)
    case oldLayout(CalendarDay)

    public var description: String {
        switch self {
        case let .doesNotOpen(day):
            "\(day) as the service holds it opens with neither of the kit's reading keys; nothing was restored. Verify the kit (efferent keys verify) and tell the service's operator."
        case let .oldLayout(day):
            "\(day) is in the old layout 1, which no writer of this project writes; this archive was written by another writer and cannot be restored into this one."
        }
    }
}
