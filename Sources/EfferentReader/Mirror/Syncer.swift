import EfferentClient
import EfferentCore
import Foundation

/// `efferent sync` (§10.2): takes every day whose upload time differs from the mirror's record
/// ("everything that changed since I looked", not a cursor), fetched as ranges of up to 92 days,
/// four in flight, each day opened, checked and written as its own file as it arrives.
public final class Syncer {
    public struct Report: Sendable, Equatable {
        public var listed = 0
        public var fetched = 0
        public var requests = 0
        public var bytes = 0
        /// Days forgotten because the listing no longer names them (only with `acceptRemovals`);
        /// their opened bodies are deleted with them.
        public var dropped = 0
        /// Opened bodies of days the mirror no longer records, deleted (only with `acceptRemovals`).
        public var sweptFiles = 0
        /// Days the mirror holds that the listing no longer names, kept because a listing alone
        /// is not trusted to remove them.
        public var unlisted = [CalendarDay]()
    }

    public struct Progress: Sendable {
        public let done: Int
        public let total: Int
        public let bytes: Int
    }

    let client: ArchiveClient
    let reading: ReadingKey
    /// The reading key a key rotation under way replaces: days not re-sealed yet open with it.
    let previous: ReadingKey?
    let mirror: Mirror
    public var progress: ((Progress) -> Void)?
    public static let inFlight = 4

    public init(client: ArchiveClient, reading: ReadingKey, previous: ReadingKey? = nil, mirror: Mirror) {
        self.client = client
        self.reading = reading
        self.previous = previous
        self.mirror = mirror
    }

    /// Syncs the days within the bounds (all when nil).
    ///
    /// A writer never deletes a day (it uploads an empty one), so a listing that leaves out days
    /// the mirror holds is a service that lost them, or one that lies: they stay in the mirror and
    /// are reported as `unlisted`, and only `acceptRemovals` forgets them.
    public func run(from: CalendarDay? = nil, to: CalendarDay? = nil, acceptRemovals: Bool = false) async throws -> Report {
        var report = Report()
        let listing = try await client.listing(from: from, to: to, readKey: reading.readKey)
        report.listed = listing.count
        var stamps = [CalendarDay: String]()
        for entry in listing { stamps[entry.day] = entry.uploaded }
        for day in mirror.days where stamps[day] == nil && (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true) {
            if acceptRemovals {
                try mirror.forget(day)
                report.dropped += 1
            } else {
                report.unlisted.append(day)
            }
        }
        if acceptRemovals { report.sweptFiles = try mirror.sweepUnrecorded() }
        // A day whose file is missing, or is not the body that was fetched, is fetched again whatever its upload time says.
        let damaged = try mirror.damagedDays()
        let wanted = listing.filter { mirror.uploaded($0.day) != $0.uploaded || damaged[$0.day] != nil || !mirror.hasFile($0.day) }.map(\.day)
        let ranges = Self.spans(wanted)
        progress?(Progress(done: 0, total: wanted.count, bytes: 0))
        let wantedSet = Set(wanted)
        var received = Set<CalendarDay>()
        var lastSave = Date()
        var next = 0
        let client = self.client, readKey = reading.readKey, keys = [reading] + (previous.map { [$0] } ?? []), listed = stamps
        try await withThrowingTaskGroup(of: (Int, [Fetched], Int, Int).self) { group in
            func launch() {
                guard next < ranges.count else { return }
                let index = next, range = ranges[index]
                group.addTask {
                    // Follow x-efferent-next until the range is exhausted.
                    var days = [Frame.Day](), requests = 0, bytes = 0
                    var after: CalendarDay?
                    repeat {
                        let answer = try await client.range(from: range.from, to: range.to, after: after, readKey: readKey)
                        requests += 1
                        bytes += answer.days.reduce(0) { $0 + $1.sealed.count + 14 }
                        days += answer.days
                        after = answer.next
                    } while after != nil
                    // Each listed day is opened and digested here, beside the other ranges in flight,
                    // rather than in the loop that stores the days one at a time; what fails is kept
                    // and thrown when the day's turn to be stored comes, as if it were done there.
                    let clock = LocalClock()
                    let fetched = days.compactMap { entry in
                        listed[entry.day].map { Fetched(entry.day, stamp: $0, entry: entry, keys: keys, bucket: client.bucket, clock: clock) }
                    }
                    return (index, fetched, requests, bytes)
                }
                next += 1
            }
            for _ in 0..<Self.inFlight { launch() }
            while let (_, days, requests, bytes) = try await group.next() {
                report.requests += requests
                report.bytes += bytes
                for entry in days {
                    let opened = try entry.opened.get()
                    try mirror.store(entry.day, body: opened.body, uploaded: entry.stamp) { try opened.digest.get() }
                    if wantedSet.contains(entry.day) {
                        received.insert(entry.day)
                        report.fetched += 1
                    }
                    // The record is saved every second (and at the end): an interruption costs at most
                    // a second of days, and a decade is not re-serialised thousands of times. The
                    // index is saved at the end only: a day it does not hold yet is read again from
                    // its file by the next answer, so an interruption costs it nothing but that read.
                    if Date().timeIntervalSince(lastSave) >= 1 {
                        try mirror.save(index: false)
                        lastSave = Date()
                    }
                }
                progress?(Progress(done: received.count, total: wanted.count, bytes: report.bytes))
                launch()
            }
        }
        if let missing = wanted.first(where: { !received.contains($0) }) {
            try mirror.save()
            throw MirrorError.notReturned(missing)
        }
        mirror.adoptChecksums()
        mirror.markSynced(at: Date())
        try mirror.save()
        return report
    }

    /// A listed day as fetched: its body opened and its index entry digested, or what failed.
    struct Fetched: Sendable {
        struct Opened: Sendable {
            let body: [UInt8]
            let digest: Result<MirrorDigest.Day, any Error>
        }

        let day: CalendarDay
        let stamp: String
        let opened: Result<Opened, any Error>

        init(_ day: CalendarDay, stamp: String, entry: Frame.Day, keys: [ReadingKey], bucket: BucketID, clock: LocalClock) {
            self.day = day
            self.stamp = stamp
            opened = Result {
                let (body, decoded) = try Syncer.opened(entry, keys: keys, bucket: bucket)
                return Opened(body: body, digest: Result { try MirrorDigest.digest(body, decoded: decoded, day: day, stamp: stamp, clock: clock) })
            }
        }
    }

    func open(_ entry: Frame.Day) throws -> [UInt8] { try Self.open(entry, keys: [reading] + (previous.map { [$0] } ?? []), bucket: client.bucket) }

    /// Opens, inflates (16 MiB cap) and decodes a sealed day with the first of `keys` that opens
    /// it (a rotation's new key, then the one it replaces); only a day that reads is kept.
    static func open(_ entry: Frame.Day, keys: [ReadingKey], bucket: BucketID) throws -> [UInt8] {
        try opened(entry, keys: keys, bucket: bucket).body
    }

    /// `open`, with the body as decoded: the index digests the day from it rather than decoding it again.
    static func opened(_ entry: Frame.Day, keys: [ReadingKey], bucket: BucketID) throws -> (body: [UInt8], decoded: DecodedDay) {
        var plaintext: [UInt8]?
        var failure: (any Error)?
        for key in keys where plaintext == nil {
            do {
                plaintext = try SealedEnvelope.open(Array(entry.sealed), with: key.privateKey, aad: .day(bucket: bucket.rawValue, day: entry.day))
            } catch {
                failure = failure ?? error
            }
        }
        guard let plaintext else {
            throw MirrorError.dayDoesNotOpen(entry.day, (failure as? CustomStringConvertible)?.description ?? "it does not open")
        }
        do {
            let body = try DayBody.inflate(plaintext)
            return (body.bytes, try body.decoded())
        } catch {
            throw MirrorError.dayDoesNotOpen(entry.day, error.description)
        }
    }

    /// Groups wanted days into ranges (§10.2 `spans()`): the next day joins the current range if it
    /// is at most 7 days after the range's last day and less than 92 days after its first.
    static func spans(_ days: [CalendarDay]) -> [(from: CalendarDay, to: CalendarDay)] {
        var out = [(from: CalendarDay, to: CalendarDay)]()
        for day in days.sorted() {
            if let last = out.last, day.daysSinceEpoch - last.to.daysSinceEpoch <= 7,
               day.daysSinceEpoch - last.from.daysSinceEpoch < 92 {
                out[out.count - 1].to = day
            } else {
                out.append((day, day))
            }
        }
        return out
    }
}
