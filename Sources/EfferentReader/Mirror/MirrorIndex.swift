import EfferentClient
import EfferentCore
import EfferentSystem
import Foundation

/// What the mirror holds, per day and metric, kept on disk beside the days (`index.bin`): each
/// metric's events, units and buckets, its day total, its readings summarised per local day with
/// their values counted, and the span of its starts — the digest of each day (`MirrorDigest.Day`).
/// Overviews, the catalogue, daily totals and readings, statistics and the first page of samples
/// answer from it instead of opening a decade of days.
///
/// It cannot drift from the days: each entry carries the upload time of the day it was read from
/// and the size and modification time of that day's file, and an entry is used only while both
/// still match the mirror's record and the file on disk; any other day is read again from its
/// file before an answer is given, and a file that does not read as an index is rebuilt whole.
/// Every file is stamped on the first answer of a process; after that, only when the record
/// changed in this process or `mirror.json` or the `days` folder changed on disk (see `snapshot`).
/// Sync writes a day's entry in the step that stores the day and saves it with the record.
final class MirrorIndex: Sendable {
    static let fileName = "index.bin"

    /// A day's file fingerprint and digest, decoded (what tests read back from a file).
    struct Entry: Sendable, Equatable {
        let file: FileStamp
        let digest: MirrorDigest.Day
    }

    /// A day as held: the fingerprint of the file its digest was read from, the upload time it was
    /// read at, and the digest as bytes (`MirrorIndexCoding.encode`), decoded only when an answer
    /// asks. Once the days are decoded the bytes are let go (empty) and encoded again if the index
    /// is saved, so a dashboard does not hold the index twice.
    struct Stored: Sendable {
        let file: FileStamp
        let stamp: String
        let bytes: [UInt8]
    }

    /// What the last full check found unchanged: the record's revision in this process and the
    /// stamps of `mirror.json` and of the `days` folder, taken before the day files were stamped.
    private struct Verified: Equatable {
        let revision: Int
        let record: FileStamp?
        let folder: FileStamp?
    }

    private struct State {
        var stored: [CalendarDay: Stored] = [:]
        var strings = MirrorIndexCoding.Strings()
        var loaded = false
        /// Every stored day decoded, once an answer has asked (a sync never does, and holds bytes only).
        var decoded: [CalendarDay: MirrorDigest.Day]?
        /// The snapshot of `decoded`, until a day changes.
        var snapshot: DigestSnapshot?
        var verified: Verified?
        var unsaved = false
        /// What went wrong with the index that a person should hear of, said once (`takeNotice`).
        var notice: String?
        var noticeSaid = false
    }

    private let profile: Profile
    private let state = Mutex(State())

    init(profile: Profile) { self.profile = profile }

    private func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        guard profile.exists(Self.fileName) else { return }
        let bytes = try? profile.read(Self.fileName)
        guard let bytes, let (stored, strings) = MirrorIndexCoding.read(bytes) else {
            state.unsaved = true
            // An index of another version (written before this reader was updated) is rebuilt without a word.
            if let bytes, bytes.starts(with: "EFX".utf8) { return }
            note(&state, "The mirror's index (\(profile.path(Self.fileName))) did not read and is rebuilt from the days, so this command "
                 + "takes longer; nothing is lost, but if it happens again check the disk the profile is on.")
            return
        }
        state.stored = stored
        state.strings = strings
    }

    private func note(_ state: inout State, _ sentence: String) {
        if state.notice == nil && !state.noticeSaid { state.notice = sentence }
    }

    /// What a person should hear about the index (it did not read and was rebuilt, or could not be
    /// saved), once per process; nil after that and when all is well.
    func takeNotice() -> String? {
        state.withLock { state in
            guard let notice = state.notice else { return nil }
            state.notice = nil
            state.noticeSaid = true
            return notice
        }
    }

    /// Records the digest of a day just written as `name` (sync, in the step that stores it).
    func record(_ day: CalendarDay, digest: MirrorDigest.Day, name: String) {
        let file = FileStamp.of(profile.path(name))
        state.withLock { state in
            loadIfNeeded(&state)
            if let file {
                state.stored[day] = Stored(file: file, stamp: digest.stamp,
                                           bytes: state.decoded == nil ? MirrorIndexCoding.encode(digest, strings: &state.strings) : [])
                state.decoded?[day] = digest
            } else {
                state.stored[day] = nil
                state.decoded?[day] = nil
            }
            state.snapshot = nil
            state.unsaved = true
        }
    }

    func forget(_ day: CalendarDay) {
        state.withLock { state in
            loadIfNeeded(&state)
            if state.stored.removeValue(forKey: day) != nil {
                state.decoded?[day] = nil
                state.snapshot = nil
                state.unsaved = true
            }
        }
    }

    /// Writes the index when it changed (not flushed to disk: a lost index is rebuilt from the days).
    func save() throws {
        let bytes: [UInt8]? = state.withLock { state in
            guard state.unsaved else { return nil }
            state.unsaved = false
            // Days held decoded are encoded again for the file (their bytes were let go).
            var complete = state.stored
            if let decoded = state.decoded {
                for (day, entry) in state.stored where entry.bytes.isEmpty {
                    guard let digest = decoded[day] else { continue }
                    complete[day] = Stored(file: entry.file, stamp: entry.stamp, bytes: MirrorIndexCoding.encode(digest, strings: &state.strings))
                }
            }
            return MirrorIndexCoding.file(complete, strings: state.strings)
        }
        if let bytes { try profile.write(Self.fileName, bytes, durable: false) }
    }

    /// How long after its last change a stamp of `mirror.json` or of the `days` folder is trusted
    /// to show the next change: file times advance in ticks (a few milliseconds on Linux, seconds
    /// on some file systems), so a change within the tick of the one before leaves the stamp as it was.
    static let settled: Int64 = 2_000_000_000

    /// The index brought in step with `uploaded` (the mirror's record, at `revision`) and the day
    /// files: an entry whose upload time or file differs is read again from the day, one for a day
    /// no longer held is dropped, and the index is saved when anything changed.
    ///
    /// Every day's file is stamped (one `stat` each) on the first call and whenever the record
    /// changed in this process, or `mirror.json` or the `days` folder has another stamp than at the
    /// last such check (a day is written by a rename into the folder, which changes the folder's
    /// modification time), or either had changed within `settled` of that check. Otherwise the last
    /// snapshot stands, so a dashboard answers without 4,189 `stat`s. A day file rewritten in place
    /// (not renamed) leaves the folder as it was: a process that already checked misses it until the
    /// next change of the record or the folder, and every new process sees it.
    func snapshot(uploaded: [CalendarDay: String], revision: Int, name: (CalendarDay) -> String) throws -> DigestSnapshot {
        // Paths by concatenation: a decade is 3,650 of them on a full check.
        let root = profile.directory.hasSuffix("/") ? profile.directory : profile.directory + "/"
        let began = Int64(Date().timeIntervalSince1970 * 1e9)
        let seen = Verified(revision: revision, record: FileStamp.of(root + Mirror.fileName), folder: FileStamp.of(root + Mirror.directoryName))
        let (result, changed): (DigestSnapshot, Bool) = try state.withLock { state in
            loadIfNeeded(&state)
            if let snapshot = state.snapshot, state.verified == seen { return (snapshot, false) }
            let clock = LocalClock()
            var changed = false
            func readAgain(_ day: CalendarDay, _ stamp: String, _ found: FileStamp) throws {
                let digest = try MirrorDigest.digest(try profile.read(name(day)), day: day, stamp: stamp, clock: clock)
                state.stored[day] = Stored(file: found, stamp: stamp,
                                           bytes: state.decoded == nil ? MirrorIndexCoding.encode(digest, strings: &state.strings) : [])
                state.decoded?[day] = digest
                changed = true
            }
            for (day, stamp) in uploaded {
                guard let found = FileStamp.of(root + name(day)) else {
                    if state.stored.removeValue(forKey: day) != nil {
                        state.decoded?[day] = nil
                        changed = true
                    }
                    continue
                }
                if let entry = state.stored[day], entry.stamp == stamp, entry.file == found { continue }
                try readAgain(day, stamp, found)
            }
            if state.stored.count != uploaded.count {
                for day in state.stored.keys where uploaded[day] == nil {
                    state.stored[day] = nil
                    state.decoded?[day] = nil
                    changed = true
                }
            }
            if state.decoded == nil {
                var decoded = [CalendarDay: MirrorDigest.Day](minimumCapacity: state.stored.count)
                var unreadable = [CalendarDay]()
                for (day, entry) in state.stored {
                    if let digest = MirrorIndexCoding.decode(day: entry.bytes, stamp: entry.stamp, table: state.strings.list) {
                        decoded[day] = digest
                    } else {
                        unreadable.append(day)
                    }
                }
                state.decoded = decoded
                // Held decoded from here on; the bytes are encoded again only if the index is saved.
                for (day, entry) in state.stored where decoded[day] != nil {
                    state.stored[day] = Stored(file: entry.file, stamp: entry.stamp, bytes: [])
                }
                for day in unreadable {
                    let entry = state.stored[day]!
                    try readAgain(day, entry.stamp, entry.file)
                }
                if !unreadable.isEmpty {
                    note(&state, "Part of the mirror's index (\(profile.path(Self.fileName))) did not read and was rebuilt from the days; "
                         + "nothing is lost, but if it happens again check the disk the profile is on.")
                }
            }
            if changed {
                state.snapshot = nil
                state.unsaved = true
            }
            let snapshot = state.snapshot ?? DigestSnapshot(days: state.decoded!)
            state.snapshot = snapshot
            // Trusted next time only if neither stamp could still be in the tick of its last change.
            let settled = [seen.record, seen.folder].allSatisfy { ($0?.modified ?? Int64.min) < began - Self.settled }
            state.verified = settled ? seen : nil
            return (snapshot, changed)
        }
        if changed {
            do { try save() } catch {
                // The answer stands (the index is in step in memory); the next process reads the days again.
                state.withLock { note(&$0, "The mirror's index could not be saved (\(error)); answers stay right but each new command reads the changed days again.") }
            }
        }
        return result
    }
}
