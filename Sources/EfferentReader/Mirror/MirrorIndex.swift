import EfferentClient
import EfferentCore
import EfferentSystem
import Foundation

/// What the mirror holds, per day and metric, kept on disk beside the days (`index.bin`,
/// `IndexFile`): each metric's events, units and buckets, its day total, its readings summarised
/// per local day with their values counted, the span of its starts, the day's workouts and sleep
/// (`MirrorDigest.Day`), and what the overview adds up of each day. Overviews, the catalogue, daily
/// totals and readings, statistics, workouts, sleep and the first page of samples answer from it
/// instead of opening a decade of days.
///
/// It is never believed on its own word. Every part of the file is covered by a checksum, and
/// every day's entry by the fingerprint of the day it was read from: the upload time the mirror
/// recorded, the size and modification time of the day's file, and that file's own checksum as
/// `mirror.json` records it. A file that does not check (a flipped byte, a cut, a count past its
/// end, another format) is rebuilt from the days; a day whose digest does not match its checksum,
/// or whose fingerprint differs from its file's (an older index over newer days), is read again
/// from its file; and each is said once (`takeNotice`) — all before an answer is built from it.
/// Every file is stamped on the first answer of a process; after that, only when the record
/// changed in this process or `mirror.json` or the `days` folder changed on disk (see `snapshot`).
/// Sync writes a day's entry in the step that stores the day and saves it with the record.
///
/// An overview reads the header, the strings, the days' fingerprints and the tallies only; the
/// digests are read, checked and decoded the first time an answer asks for them.
final class MirrorIndex: Sendable {
    static let fileName = "index.bin"

    /// A day as the index holds it: the fingerprint of the file its digest was read from, its digest
    /// (in memory, in the file, or decoded), and its tally line (nil until counted again, when the
    /// file's tallies did not check).
    struct Entry: Sendable {
        let file: FileStamp
        let stamp: String
        let body: Checksum?
        var digest: Digest
        var tally: ArraySlice<UInt8>?
    }

    enum Digest: Sendable {
        /// Encoded in this process (recorded by sync, or read again from its day).
        case bytes(ArraySlice<UInt8>)
        /// In an index file, checked against its checksum when it is read.
        case file(IndexFileHandle, offset: Int, length: Int, checksum: Checksum)
        /// Held decoded (`State.decoded`), and encoded again if the index is saved.
        case decoded
    }

    /// What the last full check found unchanged: the record's revision in this process and the
    /// stamps of `mirror.json` and of the `days` folder, taken before the day files were stamped.
    struct Verified: Equatable {
        let revision: Int
        let record: FileStamp?
        let folder: FileStamp?
    }

    struct State {
        var loaded = false
        var strings = IndexStrings()
        var entries: [CalendarDay: Entry] = [:]
        /// Every entry decoded, once an answer has asked (a sync never does, and holds bytes only).
        var decoded: [CalendarDay: MirrorDigest.Day]?
        /// The snapshot of the entries, until one changes.
        var snapshot: DigestSnapshot?
        var verified: Verified?
        var unsaved = false
        /// Counts the changes of `entries`: a snapshot's days decoded later are kept only if none came between.
        var version = 0
        /// Whether the day files have been compared with the file's fingerprints yet: what differs
        /// then is an index older (or newer) than the days, and said.
        var checked = false
        /// Whether the entries came from a file that checked: only then is a day that differs an
        /// index older than its days (a missing or damaged file was said, or is no news).
        var fromFile = false
        /// The mirror's days whose files cannot be used, as the last check found them.
        var damaged: [CalendarDay: DayDamage] = [:]
        /// What went wrong with the index that a person should hear of, said once (`takeNotice`).
        var notice: String?
        var noticeSaid = false

        mutating func changed() {
            version += 1
            snapshot = nil
            unsaved = true
        }
    }

    let profile: Profile
    /// The name of a day's file in the profile (`Mirror.file`).
    let name: @Sendable (CalendarDay) -> String
    let state = Mutex(State())

    init(profile: Profile, name: @escaping @Sendable (CalendarDay) -> String) {
        self.profile = profile
        self.name = name
    }

    /// The profile's folder with a slash: day paths by concatenation (a decade is 3,650 of them on a full check).
    var root: String { profile.directory.hasSuffix("/") ? profile.directory : profile.directory + "/" }

    func note(_ state: inout State, _ sentence: String) {
        if state.notice == nil && !state.noticeSaid { state.notice = sentence }
    }

    /// "The mirror's index (path) …", the start of what is said of it.
    var named: String { "The mirror's index (\(profile.path(Self.fileName)))" }

    /// What a person should hear about the index (it did not check and was rebuilt, or could not be
    /// saved), once per process; nil after that and when all is well.
    func takeNotice() -> String? {
        state.withLock { state in
            guard let notice = state.notice else { return nil }
            state.notice = nil
            state.noticeSaid = true
            return notice
        }
    }

    /// Records the digest of a day just written as `name`, whose bytes have checksum `body` (sync,
    /// in the step that stores it).
    func record(_ day: CalendarDay, digest: MirrorDigest.Day, body: Checksum, name: String) {
        let file = FileStamp.of(profile.path(name))
        state.withLock { state in
            loadIfNeeded(&state)
            if let file {
                let tally = DigestCoding.tally(of: digest, strings: &state.strings)[...]
                let held: Digest = state.decoded == nil ? .bytes(DigestCoding.encode(digest, strings: &state.strings)[...]) : .decoded
                state.entries[day] = Entry(file: file, stamp: digest.stamp, body: body, digest: held, tally: tally)
                state.decoded?[day] = digest
                state.damaged[day] = nil
            } else {
                state.entries[day] = nil
                state.decoded?[day] = nil
            }
            state.changed()
        }
    }

    func forget(_ day: CalendarDay) {
        state.withLock { state in
            loadIfNeeded(&state)
            state.damaged[day] = nil
            if state.entries.removeValue(forKey: day) != nil {
                state.decoded?[day] = nil
                state.changed()
            }
        }
    }

    /// Writes the index when it changed (not flushed to disk: a lost index is rebuilt from the days).
    func save() throws {
        try state.withLock { state in
            guard state.unsaved else { return }
            try write(&state)
        }
    }

    /// The mirror's days whose files cannot be used (missing, not what was fetched, unreadable), as
    /// the last check found them.
    var damaged: [CalendarDay: DayDamage] { state.withLock { $0.damaged } }

    /// The checksums of the files the entries of `days` were read from.
    func bodyChecksums(of days: [CalendarDay]) -> [CalendarDay: Checksum] {
        state.withLock { state in
            var found = [CalendarDay: Checksum]()
            for day in days { if let body = state.entries[day]?.body { found[day] = body } }
            return found
        }
    }

    /// How long after its last change a stamp of `mirror.json` or of the `days` folder is trusted
    /// to show the next change: file times advance in ticks (a few milliseconds on Linux, seconds
    /// on some file systems), so a change within the tick of the one before leaves the stamp as it was.
    static let settled: Int64 = 2_000_000_000

    /// The index brought in step with `record` (the mirror's, at `revision`) and the day files: an
    /// entry whose upload time, file or file checksum differs is read again from the day, one for a
    /// day no longer held is dropped, a day whose file is missing or is not what was fetched is left
    /// out and named in `damaged`, and the index is saved when anything changed.
    ///
    /// Every day's file is stamped (one `stat` each) on the first call and whenever the record
    /// changed in this process, or `mirror.json` or the `days` folder has another stamp than at the
    /// last such check (a day is written by a rename into the folder, which changes the folder's
    /// modification time), or either had changed within `settled` of that check. Otherwise the last
    /// snapshot stands, so a dashboard answers without 4,189 `stat`s. A day file rewritten in place
    /// (not renamed) leaves the folder as it was: a process that already checked misses it until the
    /// next change of the record or the folder, and every new process sees it.
    func snapshot(record: MirrorRecord, revision: Int) -> DigestSnapshot {
        let root = self.root
        let began = Int64(Date().timeIntervalSince1970 * 1e9)
        let seen = Verified(revision: revision, record: FileStamp.of(root + Mirror.fileName), folder: FileStamp.of(root + Mirror.directoryName))
        let (result, changed): (DigestSnapshot, Bool) = state.withLock { state in
            loadIfNeeded(&state)
            if let snapshot = state.snapshot, state.verified == seen { return (snapshot, false) }
            let before = state.version
            let clock = LocalClock()
            var damaged = [CalendarDay: DayDamage](), stale = 0
            for (day, stamp) in record.uploaded {
                let expected = record.checksums[day]
                guard let found = FileStamp.of(root + name(day)) else {
                    damaged[day] = .missing
                    drop(day, &state)
                    continue
                }
                let entry = state.entries[day]
                if let entry, entry.stamp == stamp, entry.file == found, expected == nil || entry.body == expected { continue }
                if !state.checked { stale += 1 }
                switch readDay(day, stamp: stamp, expected: expected, file: found, path: root + name(day), clock: clock) {
                case let .success((digest, body)):
                    keep(day, digest: digest, body: body, file: found, &state)
                case let .failure(damage):
                    damaged[day] = damage
                    drop(day, &state)
                }
            }
            if state.entries.count != record.uploaded.count - damaged.count {
                for day in state.entries.keys where record.uploaded[day] == nil { drop(day, &state) }
            }
            if stale > 0, state.fromFile, state.version != before {
                note(&state, "\(named) was older than \(stale) of the mirror's days, which were read again from their files; "
                     + "nothing is lost (this follows a sync that was interrupted, or an index copied from elsewhere).")
            }
            state.checked = true
            state.damaged = damaged
            let snapshot = state.snapshot ?? makeSnapshot(&state, clock: clock)
            state.snapshot = snapshot
            // Trusted next time only if neither stamp could still be in the tick of its last change.
            let settled = [seen.record, seen.folder].allSatisfy { ($0?.modified ?? Int64.min) < began - Self.settled }
            state.verified = settled ? seen : nil
            return (snapshot, state.unsaved)
        }
        if changed { saveOrSay() }
        return result
    }

    /// Saves, or says why not: the answer stands (the index is in step in memory), and the next
    /// process reads the changed days again.
    func saveOrSay() {
        do { try save() } catch {
            state.withLock { note(&$0, "The mirror's index could not be saved (\(error)); answers stay right but each new command reads the changed days again.") }
        }
    }

    /// Leaves `day` out of the index.
    func drop(_ day: CalendarDay, _ state: inout State) {
        if state.entries.removeValue(forKey: day) != nil {
            state.decoded?[day] = nil
            state.changed()
        }
    }

    /// Takes `digest`, read from `day`'s file (stamped `file`, checksum `body`), as the day's entry.
    func keep(_ day: CalendarDay, digest: MirrorDigest.Day, body: Checksum, file: FileStamp, _ state: inout State) {
        let tally = DigestCoding.tally(of: digest, strings: &state.strings)[...]
        let held: Digest = state.decoded == nil ? .bytes(DigestCoding.encode(digest, strings: &state.strings)[...]) : .decoded
        state.entries[day] = Entry(file: file, stamp: digest.stamp, body: body, digest: held, tally: tally)
        state.decoded?[day] = digest
        state.changed()
    }

    /// `day`'s file read again, its bytes held to the checksum the mirror recorded for them: the
    /// digest and the file's checksum, or why the file cannot be used.
    func readDay(_ day: CalendarDay, stamp: String, expected: Checksum?, file: FileStamp, path: String,
                 clock: LocalClock) -> Result<(MirrorDigest.Day, Checksum), DayDamage> {
        // Never more than the stamp said the file holds: a file growing while it is read is read again next time.
        guard file.size <= Int64(ProtocolLimits.maxInflatedBytes), let data = FileManager.default.contents(atPath: path) else { return .failure(.missing) }
        let bytes = Array(data)
        let body = Checksum(of: bytes)
        if let expected, body != expected { return .failure(.changed) }
        guard let digest = try? MirrorDigest.digest(bytes, day: day, stamp: stamp, clock: clock) else { return .failure(.unreadable) }
        return .success((digest, body))
    }
}

/// What the mirror records of its days: the upload time each was fetched at, and the checksum of
/// the opened body written for it (days fetched before checksums were recorded have none).
struct MirrorRecord: Sendable {
    var uploaded: [CalendarDay: String]
    var checksums: [CalendarDay: Checksum]
}

/// Why a mirrored day's file cannot be used: sync fetches it again; until then answers name it.
public enum DayDamage: Error, Sendable, Equatable {
    /// The file is not there.
    case missing
    /// The file is not the body that was fetched (its checksum differs from `mirror.json`'s).
    case changed
    /// The file does not read as a day body.
    case unreadable

    public var phrase: String {
        switch self {
        case .missing: "its file is missing"
        case .changed: "its file is not the one fetched"
        case .unreadable: "its file does not read"
        }
    }
}
