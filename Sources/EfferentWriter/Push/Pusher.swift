import EfferentCompression
import EfferentClient
import EfferentCore
import Foundation

/// `efferent push` (§9.5, §9.6): rebuilds the days that changed, sends only those whose
/// fingerprint differs from what the archive last accepted, in month frames, four in flight; marks
/// clean exactly the days the service names; and once a day walks the archive's listing to catch
/// days it lost.
public final class Pusher {
    public struct Report: Sendable, Equatable {
        public var built = 0
        public var unchanged = 0
        public var sent = 0
        public var requests = 0
        public var bytes = 0
        public var refused = 0
        public var parked = 0
        /// Days this run parked at once, with why: a day that cannot be built, or that seals over
        /// the service's 1 MiB even with its route thinned.
        public var parkedNow: [CalendarDay: String] = [:]
        /// Days the daily check found rewritten on the service without this writer sending them.
        public var rewrittenElsewhere = 0
        /// Days whose route fixes were thinned to fit 1 MiB, and to every how-many-th fix.
        public var thinned: [CalendarDay: Int] = [:]
        /// Days the archive check found missing or wrong and sent again; nil when no check ran.
        public var checkedMissing: Int?
        /// Why the check could not finish (the send went ahead).
        public var checkFailure: String?
    }

    public enum Check: Sendable { case daily, always, never }

    public struct Progress: Sendable {
        public let done: Int
        public let total: Int
        public let bytes: Int
    }

    let store: SourceStore
    let builder: DayBuilder
    let client: ArchiveClient
    let reading: ReadingKey
    let writer: Ed25519PrivateKey
    let now: @Sendable () -> Date
    public var progress: ((Progress) -> Void)?
    public static let maxFrameBytes = ProtocolLimits.writerFrameBytes
    public static let inFlight = 4

    public init(store: SourceStore, builder: DayBuilder, client: ArchiveClient, reading: ReadingKey, writer: Ed25519PrivateKey,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.builder = builder
        self.client = client
        self.reading = reading
        self.writer = writer
        self.now = now
    }

    var today: CalendarDay { store.zone.day(of: now().timeIntervalSince1970) }

    public func run(check: Check = .daily) async throws -> Report {
        var report = Report()
        // §9.4: the last 7 days are re-read every run (the Watch syncs late); unchanged ones cost nothing.
        try store.markDays((0..<7).map { today.adding(days: -$0) }.filter { $0 >= (try store.earliestDay() ?? today) })
        try store.backfill(through: today)
        if try shouldCheck(check) {
            do {
                (report.checkedMissing, report.rewrittenElsewhere) = try await checkArchive()
                try store.setMeta("reconcile.lastAt", String(now().timeIntervalSince1970))
            } catch {
                // §9.6: a check that cannot finish marks nothing and does not count as done.
                report.checkFailure = "\(error)"
            }
        }
        try await send(&report)
        try store.setMeta("clock.offset", String(client.clock.currentOffset))
        report.parked = try store.parkedDays().count
        return report
    }

    func shouldCheck(_ check: Check) throws -> Bool {
        switch check {
        case .always: return true
        case .never: return false
        case .daily:
            guard let last = try store.meta("reconcile.lastAt").flatMap(Double.init) else { return true }
            return now().timeIntervalSince1970 - last >= 86_400
        }
    }

    /// Walks the whole listing and re-marks every day the archive lacks, holds with another size
    /// than the one accepted, or shows written at another time than this writer's own last upload
    /// (a replayed upload reverts a day to an older version of the same size). Returns how many
    /// were re-marked and how many of those were rewritten elsewhere; throws if the walk cannot finish.
    func checkArchive() async throws -> (missing: Int, rewritten: Int) {
        let listed = try await client.listing(readKey: reading.readKey)
        var entries = [CalendarDay: ListedDay]()
        for entry in listed { entries[entry.day] = entry }
        var missing = [CalendarDay]()
        var rewritten = 0
        // Only days the archive once accepted can be lost; a day never sent is simply pending.
        for entry in try store.ledgerDays() where entry.day <= today {
            guard let accepted = entry.bytes else { continue }
            guard let listing = entries[entry.day], listing.bytes == accepted else {
                missing.append(entry.day)
                continue
            }
            if let own = entry.listed, own != listing.uploaded {
                missing.append(entry.day)
                rewritten += 1
            }
        }
        // Parked days get another five attempts once a day (§9.5).
        try store.markMissing(missing + (try store.parkedDays()))
        return (missing.count, rewritten)
    }

    /// Reads the listing over the days just uploaded and keeps the upload time the service gave
    /// each, for the daily check to compare (one listing page for a usual push). A failure leaves
    /// those days uncompared until their next upload.
    func recordListedTimes(of days: [CalendarDay]) async {
        guard let first = days.min(), let last = days.max() else { return }
        guard let listing = try? await client.listing(from: first, to: last, readKey: reading.readKey) else { return }
        let wanted = Set(days)
        try? store.listed(listing.filter { wanted.contains($0.day) }.map { ($0.day, $0.uploaded) })
    }

    /// Builds pending days newest first, packs month frames and sends each as soon as it is full,
    /// four in flight, building the next ones meanwhile. A frame's days are recorded when the
    /// service answers, so a push killed part-way (while still building, say) keeps what it sent:
    /// the next run starts where it stopped instead of rebuilding everything before sending
    /// anything (issue 33: a push killed in its first ~12 s of building made no progress).
    func send(_ report: inout Report) async throws {
        let deflater = try Deflater()
        // A day after tomorrow cannot be taken yet (§6); a record dated in the future (a phone clock
        // set forward) waits, marked, instead of being refused five times.
        let pending = try store.pendingDays().filter { $0 <= today.next }
        var remaining = pending[...]
        var current = [SealedDay]()
        var currentBytes = 0
        /// Frames refused for what they hold, to go again a day at a time.
        var again = [[SealedDay]]()
        /// Days done with: unchanged, parked, or in a frame the service answered.
        var done = 0
        var uploaded = [CalendarDay]()
        var sentFrames = 0
        /// The next frame to send: a day of a refused frame, else days built until a frame is full
        /// or none are left; nil when everything is built and sent.
        func nextFrame() throws -> [SealedDay]? {
            if !again.isEmpty { return again.removeFirst() }
            while let day = remaining.popFirst() {
                guard let sealed = try build(day, deflater: deflater, report: &report) else {
                    done += 1
                    continue
                }
                let size = Frame.dayBytes + Frame.lengthBytes + sealed.sealed.count
                if current.count == ProtocolLimits.maxDaysPerRequest || (!current.isEmpty && currentBytes + size > Self.maxFrameBytes) {
                    let full = current.sorted { $0.day < $1.day }
                    current = [sealed]
                    currentBytes = size
                    return full
                }
                current.append(sealed)
                currentBytes += size
            }
            guard !current.isEmpty else { return nil }
            defer {
                current = []
                currentBytes = 0
            }
            return current.sorted { $0.day < $1.day }
        }
        progress?(Progress(done: 0, total: pending.count, bytes: 0))
        try await withThrowingTaskGroup(of: ([SealedDay], Result<UploadAnswer, ArchiveError>, Result<Void, any Error>).self) { group in
            var flying = 0
            func launch() throws {
                guard let frame = try nextFrame() else { return }
                let client = self.client, writer = self.writer, store = self.store
                group.addTask {
                    do throws(ArchiveError) {
                        let answer = try await client.upload(frame.map { Frame.Day(day: $0.day, sealed: $0.sealed) }, writer: writer)
                        // Recorded as soon as the service answers, not when this push next looks
                        // up from building: a push killed meanwhile keeps it.
                        let stored = Set(answer.stored)
                        let recorded = Result<Void, any Error> {
                            try store.transaction {
                                for day in frame where stored.contains(day.day) {
                                    try store.accepted(day.day, digest: day.digest, bytes: day.sealed.count, marks: day.marks)
                                }
                            }
                        }
                        return (frame, .success(answer), recorded)
                    } catch {
                        return (frame, .failure(error), .success(()))
                    }
                }
                flying += 1
                sentFrames += 1
            }
            while flying < Self.inFlight, !(remaining.isEmpty && current.isEmpty && again.isEmpty) { try launch() }
            while let (frame, result, recorded) = try await group.next() {
                flying -= 1
                report.requests += 1
                try recorded.get()
                switch result {
                case let .success(answer):
                    let stored = Set(answer.stored)
                    uploaded += frame.map(\.day).filter { stored.contains($0) }
                    report.sent += stored.count
                    report.bytes += answer.bytes
                    if !stored.isEmpty { try store.setMeta("upload.lastAt", String(now().timeIntervalSince1970)) }
                case let .failure(error):
                    // A frame refused for what it holds (400, 413) goes again a day at a time, so
                    // only the day the service will not take counts the attempt and the rest go on.
                    // Any other 4xx counts an attempt against every day of the frame; 5xx and
                    // network failures were already retried and leave the days marked.
                    if frame.count > 1, let status = error.status, status == 400 || status == 413 {
                        again += frame.map { [$0] }
                        while flying < Self.inFlight, !again.isEmpty { try launch() }
                        continue
                    }
                    if let status = error.status, (400..<500).contains(status), status != 429 {
                        let refusal = if case let .refused(_, message) = error { message } else { error.description }
                        try store.countAttempt(frame.map(\.day), refusal: refusal)
                        report.refused += frame.count
                    }
                    if !error.isTransient && error.status == nil { throw error }
                    lastError = error
                }
                done += frame.count
                progress?(Progress(done: done, total: pending.count, bytes: report.bytes))
                while flying < Self.inFlight, !(remaining.isEmpty && current.isEmpty && again.isEmpty) { try launch() }
            }
        }
        await recordListedTimes(of: uploaded)
        if report.sent == 0, sentFrames > 0, let lastError { throw lastError }
    }

    /// Builds and seals `day`; nil when it needs no upload (its fingerprint is the one the archive
    /// last accepted) or was parked (it cannot be built, or seals over the service's 1 MiB).
    func build(_ day: CalendarDay, deflater: Deflater, report: inout Report) throws -> SealedDay? {
        // The marks are read before the records: a record committed after this read marks the
        // day again, and the mark survives this push.
        let ledger = try store.ledger(day)
        let marks = ledger?.marks ?? 0
        let fitted: DayBuilder.Fitted, sealed: [UInt8]
        do {
            fitted = try builder.fittedBody(for: day, deflater: deflater)
            sealed = try SealedEnvelope.seal(try fitted.deflated ?? fitted.body.deflated(using: deflater), to: reading.publicKey,
                                             aad: .day(bucket: client.bucket.rawValue, day: day))
        } catch {
            // One day that cannot be built (a record from before import checks existed) is
            // parked with the reason; every other day still goes.
            let reason = "\(day) cannot be built: \(error)"
            try store.park(day, refusal: reason)
            report.parkedNow[day] = reason
            return nil
        }
        report.built += 1
        onBuilt?(day)
        if fitted.keptEveryNthFix > 1 { report.thinned[day] = fitted.keptEveryNthFix }
        let digest = fitted.body.fingerprint
        if let known = ledger?.digest, known == digest {
            try store.unchanged(day, marks: marks)
            report.unchanged += 1
            return nil
        }
        guard sealed.count <= ProtocolLimits.maxDayBytes else {
            let reason = "\(day) seals to \(sealed.count) bytes, over the service's \(ProtocolLimits.maxDayBytes) for one day"
            try store.park(day, refusal: reason)
            report.parkedNow[day] = reason
            return nil
        }
        return SealedDay(day: day, sealed: sealed, digest: digest, marks: marks)
    }

    /// Called with each day built (tests: how far building ran ahead of the uploads).
    var onBuilt: ((CalendarDay) -> Void)?

    private var lastError: ArchiveError?

    struct SealedDay: Sendable {
        let day: CalendarDay
        let sealed: [UInt8]
        let digest: [UInt8]
        let marks: Int
    }
}
