import EfferentCore
import EfferentSystem
import Foundation

extension MirrorIndex {
    /// Reads `index.bin`'s header, strings, days and tallies (not its digests, which are read when
    /// an answer asks), each checked against its checksum before anything is taken from it. A file
    /// that does not check leaves the index empty, so every day is read again from its file, and
    /// says why; tallies that do not check are counted again from the digests.
    func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        let path = profile.path(Self.fileName)
        guard FileManager.default.fileExists(atPath: path) else { return }
        switch Self.open(path) {
        case let .success(loaded):
            state.strings = loaded.strings
            state.entries = loaded.entries
            state.fromFile = true
            if loaded.talliesDamaged {
                state.unsaved = true
                note(&state, "\(named) \(IndexDamage.section(.tallies).phrase); its overview is counted again from the days' entries, "
                     + "and nothing is lost, but if it happens again check the disk the profile is on.")
            }
        case let .failure(damage):
            state.unsaved = true
            if case .otherVersion = damage {
                note(&state, "\(named) \(damage.phrase) and is rebuilt from the days once, so this command takes longer.")
            } else {
                note(&state, "\(named) \(damage.phrase) and is rebuilt from the days, so this command takes longer; "
                     + "nothing is lost, but if it happens again check the disk the profile is on.")
            }
        }
    }

    /// The parts of a file an index is made of: its strings, each day's entry (digests left in the
    /// file) and whether its tallies failed their check.
    struct Loaded {
        let strings: IndexStrings
        let entries: [CalendarDay: Entry]
        let talliesDamaged: Bool
    }

    /// Opens and checks the file at `path`: its header, then its strings, days and tallies sections.
    static func open(_ path: String) -> Result<Loaded, IndexDamage> {
        guard let handle = IndexFileHandle(path: path) else { return .failure(.unreadable) }
        guard let header = handle.read(0, min(handle.size, IndexFile.headerSize)) else { return .failure(.unreadable) }
        let locations: [IndexFile.Section: IndexFile.Location]
        switch IndexFile.locations(header, fileSize: handle.size) {
        case let .success(found): locations = found
        case let .failure(damage): return .failure(damage)
        }
        let digests = locations[.digests]!, talliesAt = locations[.tallies]!
        guard let stringBytes = handle.section(locations[.strings]!), let strings = IndexFile.strings(from: stringBytes[...]) else {
            return .failure(.section(.strings))
        }
        guard let dayBytes = handle.section(locations[.days]!),
              let lines = IndexFile.days(from: dayBytes[...], digestsLength: digests.length, talliesLength: talliesAt.length) else {
            return .failure(.section(.days))
        }
        // The digests section's checksum is that of its days' checksums in order (each day's own is checked when it is read).
        guard Checksum(ofEach: lines.map(\.digest)) == digests.checksum else { return .failure(.section(.digests)) }
        let tallies = handle.section(talliesAt)
        var entries = [CalendarDay: Entry](minimumCapacity: lines.count)
        var offset = digests.offset, at = 0
        for line in lines {
            let tally = tallies.map { $0[at..<(at + line.tallyLength)] }
            entries[line.day] = Entry(file: line.file, stamp: line.stamp, body: line.body,
                                      digest: .file(handle, offset: offset, length: line.digestLength, checksum: line.digest), tally: tally)
            offset += line.digestLength
            at += line.tallyLength
        }
        return .success(Loaded(strings: strings, entries: entries, talliesDamaged: tallies == nil))
    }

    /// Writes every entry as `index.bin` (`IndexFile.Writer`), days ascending; the entries then
    /// refer to the new file, so a sync's encoded days are let go once saved.
    func write(_ state: inout State) throws {
        try profile.prepare()
        let writer = try IndexFile.Writer(path: profile.path(Self.fileName))
        let days = state.entries.keys.sorted()
        var lines = [IndexFile.DayLine](), tallies = [UInt8](), placed = [(day: CalendarDay, offset: Int, length: Int)]()
        lines.reserveCapacity(days.count)
        for day in days {
            let entry = state.entries[day]!
            let bytes: ArraySlice<UInt8>
            switch entry.digest {
            case let .bytes(held): bytes = held
            case .decoded: bytes = DigestCoding.encode(state.decoded![day]!, strings: &state.strings)[...]
            case let .file(handle, offset, length, _):
                // Copied as it stands, with the checksum it came with: a digest damaged on the disk
                // stays damaged, and is found when it is read (a read that fails leaves the day
                // out, to be read again from its file).
                guard let read = handle.read(offset, length) else { continue }
                bytes = read[...]
            }
            guard let tally = entry.tally else { continue }
            let (offset, checksum) = try writer.digest(bytes)
            if case let .file(_, _, _, kept) = entry.digest, kept != checksum {
                // Keep the old checksum so the damage is still seen; the bytes are what they are.
                lines.append(IndexFile.DayLine(day: day, stamp: entry.stamp, file: entry.file, body: entry.body, digestLength: bytes.count,
                                               digest: kept, tallyLength: tally.count))
            } else {
                lines.append(IndexFile.DayLine(day: day, stamp: entry.stamp, file: entry.file, body: entry.body, digestLength: bytes.count,
                                               digest: checksum, tallyLength: tally.count))
            }
            tallies += tally
            placed.append((day, offset, bytes.count))
        }
        try writer.finish(strings: state.strings, days: lines, tallies: tallies)
        // Opened before it takes the name: the entries read the file written here, whatever is renamed over it later.
        let reopened = IndexFileHandle(path: writer.finishedPath)
        try writer.publish()
        state.unsaved = false
        guard let reopened else { return }
        var tallyAt = 0
        for ((day, offset, length), line) in zip(placed, lines) {
            guard var entry = state.entries[day] else { continue }
            if case .bytes = entry.digest { entry.digest = .file(reopened, offset: offset, length: length, checksum: line.digest) }
            entry.tally = tallies[tallyAt..<(tallyAt + line.tallyLength)]
            tallyAt += line.tallyLength
            state.entries[day] = entry
        }
    }
}

extension MirrorIndex {
    /// A day's entry read back whole: the stamp of the file it was read from and its digest.
    struct Decoded: Sendable, Equatable {
        let file: FileStamp
        let digest: MirrorDigest.Day
    }

    /// Every day of the file at `path` decoded; nil when any part of it does not check (what tests read back).
    static func decodedEntries(at path: String) -> [CalendarDay: Decoded]? {
        guard case let .success(loaded) = open(path), !loaded.talliesDamaged else { return nil }
        var out = [CalendarDay: Decoded]()
        for (day, entry) in loaded.entries {
            guard case let .file(handle, offset, length, checksum) = entry.digest, let bytes = handle.read(offset, length),
                  Checksum(of: bytes) == checksum, let digest = DigestCoding.decode(bytes[...], stamp: entry.stamp, table: loaded.strings.list) else { return nil }
            out[day] = Decoded(file: entry.file, digest: digest)
        }
        return out
    }
}
