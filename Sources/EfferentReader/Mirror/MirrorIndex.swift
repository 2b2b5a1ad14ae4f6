import EfferentClient
import EfferentCore
import EfferentSystem

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
/// Sync writes a day's entry in the step that stores the day and saves it with the record.
final class MirrorIndex: Sendable {
    static let fileName = "index.bin"

    struct Entry: Sendable, Equatable {
        let file: FileStamp
        let digest: MirrorDigest.Day
    }

    private struct State {
        var entries: [CalendarDay: Entry] = [:]
        var loaded = false
        /// The snapshot of `entries`, until one changes.
        var snapshot: DigestSnapshot?
        var unsaved = false
    }

    private let profile: Profile
    private let state = Mutex(State())

    init(profile: Profile) { self.profile = profile }

    private func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        guard profile.exists(Self.fileName), let bytes = try? profile.read(Self.fileName),
              let entries = MirrorIndexCoding.decode(bytes) else { return }
        state.entries = entries
    }

    /// Records the digest of a day just written as `name` (sync, in the step that stores it).
    func record(_ day: CalendarDay, digest: MirrorDigest.Day, name: String) {
        let file = FileStamp.of(profile.path(name))
        state.withLock { state in
            loadIfNeeded(&state)
            if let file { state.entries[day] = Entry(file: file, digest: digest) } else { state.entries[day] = nil }
            state.snapshot = nil
            state.unsaved = true
        }
    }

    func forget(_ day: CalendarDay) {
        state.withLock { state in
            loadIfNeeded(&state)
            if state.entries.removeValue(forKey: day) != nil {
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
            return MirrorIndexCoding.encode(state.entries)
        }
        if let bytes { try profile.write(Self.fileName, bytes, durable: false) }
    }

    /// The index brought in step with `uploaded` (the mirror's record) and the day files: an
    /// entry whose upload time or file differs is read again from the day, one for a day no
    /// longer held is dropped, and the index is saved when anything changed.
    func snapshot(uploaded: [CalendarDay: String], name: (CalendarDay) -> String) throws -> DigestSnapshot {
        // Paths by concatenation: a decade is 3,650 of them on every answer.
        let root = profile.directory.hasSuffix("/") ? profile.directory : profile.directory + "/"
        let result: DigestSnapshot = try state.withLock { state in
            loadIfNeeded(&state)
            let clock = LocalClock()
            var changed = false
            for (day, stamp) in uploaded {
                let file = name(day)
                guard let found = FileStamp.of(root + file) else {
                    if state.entries.removeValue(forKey: day) != nil { changed = true }
                    continue
                }
                if let entry = state.entries[day], entry.digest.stamp == stamp, entry.file == found { continue }
                let bytes: [UInt8]
                bytes = try profile.read(file)
                state.entries[day] = Entry(file: found, digest: try MirrorDigest.digest(bytes, day: day, stamp: stamp, clock: clock))
                changed = true
            }
            if state.entries.count != uploaded.count {
                for day in state.entries.keys where uploaded[day] == nil {
                    state.entries[day] = nil
                    changed = true
                }
            }
            if changed {
                state.snapshot = nil
                state.unsaved = true
            }
            if let snapshot = state.snapshot { return snapshot }
            let snapshot = DigestSnapshot(days: state.entries.mapValues(\.digest))
            state.snapshot = snapshot
            return snapshot
        }
        try save()
        return result
    }
}
