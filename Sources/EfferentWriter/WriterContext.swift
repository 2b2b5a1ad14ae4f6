import EfferentClient
import EfferentCore
import Foundation
import EfferentSystem

/// The writer as a library: a profile's settings and keys, its source store and the service
/// client, shared by every writer command and by servers that run for days (a receiver taking
/// a phone's samples).
///
/// It may be used from several threads at once. The store serialises its one connection, so an
/// import (or a receiver) commits batches while a push seals and uploads days; a record committed
/// while its day is sealing marks the day again and the next push sends it. Pushes and edit runs,
/// which talk to the service about the same days, take turns.
public final class WriterContext: Sendable {
    public let profile: Profile
    private let current: Mutex<ProfileSettings>
    public let reading: ReadingKey
    public let writer: Ed25519PrivateKey
    public let store: SourceStore
    private let retry: RetryPolicy
    private let transport: (any HTTPTransport)?
    private let onRetry: (@Sendable (String) -> Void)?
    /// Pushes, edit runs and zone changes take turns.
    let exchanges = Turnstile()

    /// Opens the writer profile at `profile`; `onRetry` hears each retry as a sentence (the CLI
    /// prints it); `transport` puts the service elsewhere (tests).
    public init(profile: Profile, retry: RetryPolicy = RetryPolicy(), transport: (any HTTPTransport)? = nil,
                onRetry: (@Sendable (String) -> Void)? = nil) throws {
        guard profile.exists(Profile.settingsName), profile.exists(KeyFile.writerName) else {
            if profile.exists(Profile.settingsName), (try? profile.settings())?.role == "reader" {
                throw WriterError.readerProfile(profile.directory)
            }
            throw WriterError.notInitialised(profile.directory)
        }
        self.profile = profile
        var settings = try profile.settings()
        // A rotation under way seals with its new key from the moment it is journaled.
        reading = try profile.readingKeys().current
        writer = try profile.writerKey()
        guard let zone = ZoneCalendar(identifier: settings.timeZone) else { throw WriterError.unknownTimeZone(settings.timeZone) }
        store = try SourceStore(path: profile.path(SourceStore.fileName), zone: zone)
        // The store says which zone its records are filed in: a re-cut interrupted before the
        // profile was saved is finished here, and an older store learns its zone.
        if let filed = try store.meta(SourceStore.zoneKey), filed != settings.timeZone, let zone = ZoneCalendar(identifier: filed) {
            store.adopt(zone)
            settings.timeZone = filed
            settings.timeZonePinned = true
            try profile.save(settings)
        } else if try store.meta(SourceStore.zoneKey) == nil {
            try store.setMeta(SourceStore.zoneKey, settings.timeZone)
        }
        current = Mutex(settings)
        self.retry = retry
        self.transport = transport
        self.onRetry = onRetry
    }

    /// The settings as they stand (the zone changes with `settleZone` and `changeZone`).
    public var settings: ProfileSettings { current.withLock { $0 } }

    /// The zone days are cut in.
    public var zone: ZoneCalendar { store.zone }

    /// Changes the settings, on disk first, then here.
    func save(_ change: (inout ProfileSettings) -> Void) throws {
        var updated = settings
        change(&updated)
        try profile.save(updated)
        current.withLock { $0 = updated }
    }

    /// The service client, on the clock offset the last run learnt.
    public func client() throws -> ArchiveClient {
        let offset = try store.meta("clock.offset").flatMap { Int64($0) } ?? 0
        return ArchiveClient(endpoint: settings.endpoint, bucket: settings.bucket, clock: ServiceClock(offset: offset),
                             retry: retry, transport: transport, onRetry: onRetry)
    }

    /// What an import read and what it changed, and what it carried and left out per kind.
    public struct ImportResult: Sendable {
        public let tally: ExportTally
        public let seen: Int
        public let added: Int
        public let removed: Int
        public let summary: ImportSummary
        /// What the input said about the zone: pinned by it, agreeing, or a warning.
        public let zone: ZoneOutcome
        /// The store held no imported record before this run: what was seen and not added was
        /// repeated within the input itself, not already here.
        public let first: Bool
    }

    /// Reads the export (or event file, or a file of one of `lineFormats`) at `url` into the
    /// store. A whole Apple export also removes, within its own span and metrics, what it no
    /// longer holds.
    public func importExport(at url: URL, lineFormats: [LineFormat] = [], progress: ((ExportProgress) -> Void)? = nil) throws -> ImportResult {
        let input = try ExportLocator.locate(url, lineFormats: lineFormats)
        let (format, full): (String, Bool) = switch input {
        case .zip: ("apple-zip", true)
        case .xml: ("apple-xml", true)
        case .efferentEvents: ("efferent-ndjson", false)
        case let .lines(_, lineFormat): (lineFormat.name, false)
        }
        let first = try store.earliestDay() == nil
        let session = try store.beginImport(source: url.lastPathComponent, format: format, full: full)
        let tally = try ExportImporter.read(input, into: session, progress: progress)
        try session.finish()
        let zone = try settleZone(tally.zone)
        return ImportResult(tally: tally, seen: session.seen, added: session.added, removed: session.removed, summary: session.summary,
                            zone: zone, first: first)
    }

    /// The days as they would be built now.
    public func builder(priority: SourcePriority) -> DayBuilder {
        DayBuilder(store: store, priority: priority, hourlyFrom: settings.hourlyFrom)
    }

    /// Seals the days that changed and uploads them (§9.5), after any push or edit run already
    /// going has finished.
    public func push(check: Pusher.Check, priority: SourcePriority,
                     progress: (@Sendable (Pusher.Progress) -> Void)? = nil) async throws -> Pusher.Report {
        try await exchanges.pass { [self] in
            // The client is made in turn: the push before this one may have learnt the service's clock.
            // The key is read at each push: a rotation in another process may have replaced it.
            let pusher = Pusher(store: store, builder: builder(priority: priority), client: try client(), reading: try currentReading(),
                                writer: writer)
            pusher.progress = progress
            return try await pusher.run(check: check)
        }
    }

    /// Applies and answers the agent edits waiting on the service; nil without an editor key.
    public func applyEdits() async throws -> EditApplier.Report? {
        guard profile.exists(KeyFile.editorName) else { return nil }
        return try await exchanges.pass { [self] in
            try await EditApplier(store: store, client: try client(), reading: try currentReading(), writer: writer,
                                  editor: try currentEditor().publicKey).run()
        }
    }
}
