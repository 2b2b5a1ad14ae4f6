import EfferentClient
import EfferentCore
import EfferentRecovery
import Foundation

/// `efferent keys rotate`: takes a handoff back. A new reading key and editor key replace the old
/// ones, every day is re-sealed to the new reading key and uploaded again, and the service is told
/// the new keys, so every read signed with an old handoff and every edit from an old editor is
/// refused. The steps, in the order documents/protocol.md ("Key rotation") states:
///
/// 1. the new keys are written beside the old in `rotation.json` (flushed to disk) — from here
///    every push and read on this profile uses the new key, and opens days with either;
/// 2. they are sealed to the writer key and kept by the service (`RotationRecord`), so a kit
///    written before this rotation still finds them if this machine is lost half-way;
/// 3. the new read key and editor key are registered (`PUT /reader`, `PUT /editor`): old
///    handoffs are shut out from this moment;
/// 4. every day sealed to the old key is opened, sealed to the new one and uploaded (the same
///    compressed body, so the same size and fingerprint); a day neither key opens is rebuilt from
///    the writer's store and pushed;
/// 5. the listing is read again and any day another process uploaded meanwhile is checked;
/// 6. the new keys take the place of the old in their files, the handoff is written anew, and
///    `rotation.json` goes.
///
/// Killed at any moment, every day still opens with one of the two keys the journal holds, and
/// running it again resumes where it stopped: each step is safe to repeat.
public struct KeyRotation: Sendable {
    public struct Report: Sendable, Equatable {
        /// The rotation resumed one a previous run began.
        public var resumed = false
        public var days = 0
        public var resealed = 0
        public var alreadyNew = 0
        /// Days neither key opened, rebuilt from the writer's store and pushed.
        public var rebuilt = 0
        /// Days another process uploaded during the rotation, checked again.
        public var rechecked = 0
        public var requests = 0
        public var bytes = 0
    }

    public struct Progress: Sendable {
        public let done: Int
        public let total: Int
        public let bytes: Int
    }

    let context: WriterContext
    public var progress: (@Sendable (Progress) -> Void)?
    /// Called after each step (1…6) has finished: tests stop a rotation between any two.
    public var afterStep: (@Sendable (Int) throws -> Void)?

    public init(context: WriterContext) { self.context = context }

    public func run() async throws -> Report {
        let rotation = self
        return try await context.exchanges.pass { try await rotation.rotate() }
    }

    private func rotate() async throws -> Report {
        var report = Report()
        let profile = context.profile
        let writer = context.writer
        // 1. The journal: resumed, or begun with fresh keys.
        let journal: RotationJournal
        if let existing = try profile.rotationJournal() {
            journal = existing
            report.resumed = true
        } else {
            journal = RotationJournal(reading: ReadingKey(), editor: EditorKey(), previousReading: try profile.readingKey(),
                                      started: Int64(Date().timeIntervalSince1970))
            try profile.saveRotationJournal(journal)
        }
        try afterStep?(1)
        let client = try context.client()
        // 2. The keys sealed to the writer key, for a kit written before this rotation.
        let record = RotationRecord(reading: journal.reading, editor: journal.editor, previousReading: journal.previousReading,
                                    written: journal.started)
        _ = try await client.putKit(RotationRecord.locator(for: writer), sealed: try record.sealed(for: writer), writer: writer)
        try afterStep?(2)
        // 3. The service learns the new keys; old handoffs are refused from here on.
        try await client.register(.reader, key: journal.reading.readKey.publicKey, writer: writer)
        try await client.register(.editor, key: journal.editor.publicKey, writer: writer)
        try afterStep?(3)
        // 4. Every day sealed to the new key.
        let readKey = journal.reading.readKey
        var known = [CalendarDay: String]()
        let listing = try await client.listing(readKey: readKey)
        report.days = listing.count
        for entry in listing { known[entry.day] = entry.uploaded }
        var unreadable = [CalendarDay]()
        var done = 0
        progress?(Progress(done: 0, total: listing.count, bytes: 0))
        for span in Self.spans(listing.map(\.day)) {
            let uploaded = try await reseal(span, client: client, journal: journal, listed: known, report: &report, unreadable: &unreadable)
            for (day, time) in uploaded { known[day] = time }
            done += span.count
            progress?(Progress(done: done, total: listing.count, bytes: report.bytes))
        }
        if !unreadable.isEmpty {
            try context.store.markDays(unreadable, forget: true)
            report.rebuilt = unreadable.count
            _ = try await context.pushInTurn(check: .never, priority: SourcePriority(), reading: journal.reading)
        }
        try afterStep?(4)
        // 5. Another process may have uploaded a day sealed to the old key meanwhile (a push begun
        // before step 1): whatever the listing now shows other than what this run saw is checked.
        for _ in 0..<5 {
            let again = try await client.listing(readKey: readKey)
            let moved = again.filter { known[$0.day] != $0.uploaded }.map(\.day)
            guard !moved.isEmpty else { break }
            report.rechecked += moved.count
            for entry in again { known[entry.day] = entry.uploaded }
            for span in Self.spans(moved) {
                var ignored = [CalendarDay]()
                for (day, time) in try await reseal(span, client: client, journal: journal, listed: known, report: &report, unreadable: &ignored) {
                    known[day] = time
                }
            }
        }
        try afterStep?(5)
        // 6. The new keys in place of the old; the journal goes last.
        try profile.write(KeyFile.readingName, KeyFile.encode(journal.reading))
        try profile.write(KeyFile.editorName, KeyFile.encode(journal.editor))
        let handoff = try Handoff(endpoint: context.settings.endpoint, bucket: context.settings.bucket, readingKey: journal.reading,
                                  editorKey: journal.editor)
        try profile.write(Profile.handoffName, Array((handoff.text + "\n").utf8))
        try profile.removeRotationJournal()
        try afterStep?(6)
        return report
    }

    /// Re-seals the days of `span` that are still sealed to the previous key, uploading them in
    /// frames; returns the listed time of each day uploaded. Days neither key opens are collected.
    ///
    /// The daily check compares the listing's time of each day with the writer's own last upload
    /// of it (the ledger's `listed`), so each day this writer re-seals has its new time recorded at
    /// once — and so has a day found sealed to the new key already (a killed run uploaded it) whose
    /// body is exactly the one the ledger says this writer last sent: that upload was this writer's.
    private func reseal(_ span: [CalendarDay], client: ArchiveClient, journal: RotationJournal, listed: [CalendarDay: String],
                        report: inout Report, unreadable: inout [CalendarDay]) async throws -> [(CalendarDay, String)] {
        guard let first = span.first, let last = span.last else { return [] }
        let wanted = Set(span)
        let bucket = client.bucket.rawValue
        var frame = [Frame.Day]()
        var frameBytes = 0
        var uploaded = [CalendarDay]()
        var confirmed = [(CalendarDay, String)]()
        func flush() async throws {
            guard !frame.isEmpty else { return }
            let answer = try await client.upload(frame, writer: context.writer)
            report.requests += 1
            report.bytes += answer.bytes
            report.resealed += answer.stored.count
            uploaded += answer.stored
            frame = []
            frameBytes = 0
        }
        var after: CalendarDay?
        repeat {
            let answer = try await client.range(from: first, to: last, after: after, readKey: journal.reading.readKey)
            report.requests += 1
            for entry in answer.days where wanted.contains(entry.day) {
                let aad = EnvelopeAAD.day(bucket: bucket, day: entry.day)
                let sealed = Array(entry.sealed)
                if let plaintext = try? SealedEnvelope.open(sealed, with: journal.reading.privateKey, aad: aad) {
                    report.alreadyNew += 1
                    if let time = listed[entry.day], let ledger = try context.store.ledger(entry.day), ledger.listed != time,
                       let digest = ledger.digest, (try? DayBody.inflate(plaintext).fingerprint) == digest {
                        confirmed.append((entry.day, time))
                    }
                    continue
                }
                guard let plaintext = try? SealedEnvelope.open(sealed, with: journal.previousReading.privateKey, aad: aad) else {
                    unreadable.append(entry.day)
                    continue
                }
                let resealed = try SealedEnvelope.seal(plaintext, to: journal.reading.publicKey, aad: aad)
                let size = Frame.dayBytes + Frame.lengthBytes + resealed.count
                if frame.count == ProtocolLimits.maxDaysPerRequest || (!frame.isEmpty && frameBytes + size > ProtocolLimits.writerFrameBytes) {
                    try await flush()
                }
                frame.append(Frame.Day(day: entry.day, sealed: resealed))
                frameBytes += size
            }
            after = answer.next
        } while after != nil
        try await flush()
        var times = [(CalendarDay, String)]()
        if !uploaded.isEmpty {
            let mine = Set(uploaded)
            times = try await client.listing(from: uploaded.min(), to: uploaded.max(), readKey: journal.reading.readKey)
                .filter { mine.contains($0.day) }.map { ($0.day, $0.uploaded) }
        }
        try context.store.listed(times + confirmed)
        return times
    }

    /// Days in runs a range request can carry: at most 92 days from the run's first.
    static func spans(_ days: [CalendarDay]) -> [[CalendarDay]] {
        var spans = [[CalendarDay]]()
        for day in days.sorted() {
            if let first = spans.last?.first, day.daysSinceEpoch - first.daysSinceEpoch < Int64(ProtocolLimits.maxRangeDays) {
                spans[spans.count - 1].append(day)
            } else {
                spans.append([day])
            }
        }
        return spans
    }
}
