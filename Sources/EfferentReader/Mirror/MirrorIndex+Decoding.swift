import EfferentCore
import EfferentSystem

extension MirrorIndex {
    /// The snapshot of the entries as they stand: the overview's tallies at once (from the tally
    /// lines), the days' digests decoded when an answer first asks for them (`decodeAll`).
    func makeSnapshot(_ state: inout State, clock: LocalClock) -> DigestSnapshot {
        completeTallies(&state, clock: clock)
        var days = state.entries.keys.sorted()
        var tallies = OverviewTallies(days: days, lines: days.map { state.entries[$0]!.tally ?? [] }, table: state.strings.list)
        if tallies == nil {
            // Lines that passed their checksum but do not read: counted again from the digests.
            note(&state, "\(named) \(IndexDamage.section(.tallies).phrase); its overview is counted again from the days' entries, "
                 + "and nothing is lost, but if it happens again check the disk the profile is on.")
            for day in days { state.entries[day]!.tally = nil }
            completeTallies(&state, clock: clock)
            days = state.entries.keys.sorted()
            tallies = OverviewTallies(days: days, lines: days.map { state.entries[$0]!.tally ?? [] }, table: state.strings.list)
        }
        let counted = tallies ?? OverviewTallies(days: [], lines: [], table: [])!
        if let decoded = state.decoded { return DigestSnapshot(sortedDays: days, tallies: counted, decoded: decoded) }
        let entries = days.map { (day: $0, entry: state.entries[$0]!) }
        let table = state.strings.list, version = state.version
        return DigestSnapshot(sortedDays: days, tallies: counted) { [self] in decodeAll(entries, table: table, version: version) }
    }

    /// An entry's digest decoded from wherever it is held; nil when its bytes do not match their
    /// checksum or do not read as a digest.
    func decode(_ day: CalendarDay, _ entry: Entry, _ state: State) -> MirrorDigest.Day? {
        switch entry.digest {
        case .decoded: return state.decoded?[day]
        case let .bytes(bytes): return DigestCoding.decode(bytes, stamp: entry.stamp, table: state.strings.list)
        case let .file(handle, offset, length, checksum):
            guard let bytes = handle.read(offset, length), Checksum(of: bytes) == checksum else { return nil }
            return DigestCoding.decode(bytes[...], stamp: entry.stamp, table: state.strings.list)
        }
    }

    /// Counts again, from each day's digest, the tally lines the file did not give (its tallies
    /// section did not check); a digest that does not check is read again from its day.
    func completeTallies(_ state: inout State, clock: LocalClock) {
        let missing = state.entries.filter { $0.value.tally == nil }.map(\.key).sorted()
        guard !missing.isEmpty else { return }
        for day in missing {
            let entry = state.entries[day]!
            if let digest = decode(day, entry, state) {
                state.entries[day]!.tally = DigestCoding.tally(of: digest, strings: &state.strings)[...]
                state.changed()
                continue
            }
            noteDigests(&state, count: 1)
            guard let file = FileStamp.of(root + name(day)) else {
                drop(day, &state)
                state.damaged[day] = .missing
                continue
            }
            switch readDay(day, stamp: entry.stamp, expected: entry.body, file: file, path: root + name(day), clock: clock) {
            case let .success((digest, body)): keep(day, digest: digest, body: body, file: file, &state)
            case let .failure(damage):
                drop(day, &state)
                state.damaged[day] = damage
            }
        }
    }

    func noteDigests(_ state: inout State, count: Int) {
        note(&state, "\(named) held \(count == 1 ? "a day whose entry does" : "\(count) days whose entries do") not match "
             + "\(count == 1 ? "its checksum; it was" : "their checksums; they were") read again from the days, and nothing is lost, "
             + "but if it happens again check the disk the profile is on.")
    }

    /// Every day of a snapshot decoded, each digest checked against its checksum first: the file's
    /// read in runs of up to 4 MiB (a decade's 11 MB in a few reads, never a copy of the whole), a
    /// digest that does not check read again from its day's file. What was decoded becomes the
    /// index's own if nothing changed since the snapshot was made; what was read again is saved.
    func decodeAll(_ entries: [(day: CalendarDay, entry: Entry)], table: [String], version: Int) -> [CalendarDay: MirrorDigest.Day] {
        var decoded = [CalendarDay: MirrorDigest.Day](minimumCapacity: entries.count)
        var failed = [Int]()
        var index = 0
        while index < entries.count {
            let (day, entry) = entries[index]
            guard case let .file(handle, start, _, _) = entry.digest else {
                if case let .bytes(bytes) = entry.digest, let digest = DigestCoding.decode(bytes, stamp: entry.stamp, table: table) {
                    decoded[day] = digest
                } else {
                    failed.append(index)
                }
                index += 1
                continue
            }
            var end = index, stop = start
            while end < entries.count, case let .file(other, offset, length, _) = entries[end].entry.digest, other === handle, offset == stop,
                  end == index || stop - start + length <= 4 << 20 {
                stop += length
                end += 1
            }
            let run = handle.read(start, stop - start)
            for at in index..<end {
                guard case let .file(_, offset, length, checksum) = entries[at].entry.digest, let run,
                      case let bytes = run[(offset - start)..<(offset - start + length)], Checksum(of: bytes) == checksum,
                      let digest = DigestCoding.decode(bytes, stamp: entries[at].entry.stamp, table: table) else {
                    failed.append(at)
                    continue
                }
                decoded[entries[at].day] = digest
            }
            index = end
        }
        var repaired = [(day: CalendarDay, digest: MirrorDigest.Day, body: Checksum, file: FileStamp)](), unusable = [(CalendarDay, DayDamage)]()
        let clock = LocalClock()
        for at in failed {
            let (day, entry) = entries[at]
            let path = root + name(day)
            let result = FileStamp.of(path).map { readDay(day, stamp: entry.stamp, expected: entry.body, file: $0, path: path, clock: clock) } ?? .failure(.missing)
            switch result {
            case let .success((digest, body)):
                decoded[day] = digest
                repaired.append((day, digest, body, FileStamp.of(path) ?? entry.file))
            case let .failure(damage):
                // Its entry checked a moment ago and its file no longer reads: answered without it, and said.
                decoded[day] = MirrorDigest.Day(stamp: entry.stamp, zone: nil, metrics: [:])
                unusable.append((day, damage))
            }
        }
        let save: Bool = state.withLock { state in
            if !failed.isEmpty { noteDigests(&state, count: failed.count) }
            if !unusable.isEmpty {
                note(&state, "The mirror's copy of \(unusable.map { "\($0.0)" }.joined(separator: ", ")) could not be read "
                     + "(\(unusable[0].1.phrase)) and is answered without it; `efferent sync` fetches it again.")
            }
            guard state.version == version else { return false }
            for (day, entry) in entries {
                var kept = entry
                kept.digest = .decoded
                state.entries[day] = kept
            }
            var all = decoded
            for (day, digest, body, file) in repaired {
                state.entries[day] = Entry(file: file, stamp: digest.stamp, body: body, digest: .decoded,
                                           tally: DigestCoding.tally(of: digest, strings: &state.strings)[...])
            }
            for (day, damage) in unusable {
                state.entries[day] = nil
                state.damaged[day] = damage
                all[day] = nil
            }
            state.decoded = all
            if !failed.isEmpty {
                state.changed()
                return true
            }
            return false
        }
        if save { saveOrSay() }
        return decoded
    }
}
