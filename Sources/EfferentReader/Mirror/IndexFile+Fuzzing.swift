import EfferentClient
import EfferentCore

/// What the index's fuzz target (`fuzz-index`) reaches beneath the checksums, and nothing else
/// uses (`@_spi(Fuzzing) import EfferentReader`): a checksum turns almost every random change into
/// a rebuild, so to reach the parsers behind it the target also writes files whose checksums match
/// bytes that were never an index.
@_spi(Fuzzing) public enum IndexFileFuzzing {
    /// A mirror at `directory` holding `days` (opened bodies), each stored as sync stores it (file,
    /// checksum, index entry), the record and index saved.
    public static func makeMirror(at directory: String, endpoint: String, days: [(CalendarDay, [UInt8])]) throws -> Mirror {
        let mirror = try Mirror(profile: Profile(directory: directory), endpoint: endpoint)
        let clock = LocalClock()
        for (day, body) in days {
            try mirror.store(day, body: body, uploaded: "2025-06-02T00:00:00Z") {
                try MirrorDigest.digest(body, day: day, stamp: "2025-06-02T00:00:00Z", clock: clock)
            }
        }
        try mirror.save()
        return mirror
    }

    /// The index file `file` with one of its sections — 0 strings, 1 days, 2 tallies, by `which`
    /// modulo 3 — replaced by `bytes`, and the header's checksums made to match (the digests' too,
    /// from the new days section when it reads). Nil when `file` is not an index that checks.
    public static func resealing(_ file: [UInt8], section which: Int, with bytes: [UInt8]) -> [UInt8]? {
        guard var parts = sections(of: file) else { return nil }
        let section: IndexFile.Section = [.strings, .days, .tallies][((which % 3) + 3) % 3]
        parts[section] = bytes
        var digestChecksum: Checksum?
        if let lines = IndexFile.days(from: parts[.days]![...], digestsLength: parts[.digests]!.count, talliesLength: parts[.tallies]!.count) {
            digestChecksum = Checksum(ofEach: lines.map(\.digest))
        }
        return assemble(parts, digests: digestChecksum)
    }

    /// The index file `file` with the digest of its day at `index` (modulo their count) replaced
    /// by `bytes`, its length and checksum in the days section and every checksum above made to
    /// match. Nil when `file` is not an index that checks or holds no day.
    public static func resealing(_ file: [UInt8], day index: Int, digest bytes: [UInt8]) -> [UInt8]? {
        guard var parts = sections(of: file), let digests = parts[.digests], let days = parts[.days], let tallies = parts[.tallies],
              var lines = IndexFile.days(from: days[...], digestsLength: digests.count, talliesLength: tallies.count), !lines.isEmpty else { return nil }
        let at = ((index % lines.count) + lines.count) % lines.count
        var rebuilt = [UInt8](), offset = 0
        for (position, line) in lines.enumerated() {
            if position == at {
                rebuilt += bytes
                lines[position] = IndexFile.DayLine(day: line.day, stamp: line.stamp, file: line.file, body: line.body, digestLength: bytes.count,
                                                    digest: Checksum(of: bytes), tallyLength: line.tallyLength)
            } else {
                rebuilt += digests[offset..<(offset + line.digestLength)]
            }
            offset += line.digestLength
        }
        parts[.digests] = rebuilt
        parts[.days] = IndexFile.days(lines)
        return assemble(parts, digests: Checksum(ofEach: lines.map(\.digest)))
    }

    /// Every parser of the format given `bytes` as it is: none may trap or allocate past the bytes,
    /// and what each accepts is written back to bytes it reads the same.
    public static func parse(_ bytes: [UInt8]) {
        _ = IndexFile.locations(bytes, fileSize: bytes.count)
        if let strings = IndexFile.strings(from: bytes[...]) {
            guard IndexFile.strings(from: IndexFile.strings(strings)[...])?.list == strings.list else { fatalError("a strings section changed on writing") }
        }
        if let lines = IndexFile.days(from: bytes[...], digestsLength: nil, talliesLength: nil) {
            let digests = lines.reduce(0) { $0 + $1.digestLength }, tallies = lines.reduce(0) { $0 + $1.tallyLength }
            guard IndexFile.days(from: IndexFile.days(lines)[...], digestsLength: digests, talliesLength: tallies) == lines else {
                fatalError("a days section changed on writing")
            }
        }
        let table = ["steps", "heartRate", "count", "count/min", "Europe/Berlin", "Watch", "37", "asleepCore", "workout.distance.sum"]
        if let digest = DigestCoding.decode(bytes[...], stamp: "s", table: table) {
            var strings = IndexStrings()
            let again = DigestCoding.encode(digest, strings: &strings)
            guard DigestCoding.decode(again[...], stamp: "s", table: strings.list) == digest else { fatalError("a digest changed on writing") }
        }
        _ = OverviewTallies(days: [CalendarDay(year: 2025, month: 6, day: 1)!], lines: [bytes[...]], table: table)
    }

    private static func sections(of file: [UInt8]) -> [IndexFile.Section: [UInt8]]? {
        guard case let .success(locations) = IndexFile.locations(Array(file.prefix(IndexFile.headerSize)), fileSize: file.count) else { return nil }
        return locations.mapValues { Array(file[$0.offset..<($0.offset + $0.length)]) }
    }

    private static func assemble(_ parts: [IndexFile.Section: [UInt8]], digests: Checksum?) -> [UInt8] {
        var locations = [IndexFile.Section: IndexFile.Location](), offset = IndexFile.headerSize
        for section in IndexFile.Section.allCases {
            let bytes = parts[section]!
            let checksum = section == .digests ? digests ?? Checksum(of: bytes) : Checksum(of: bytes)
            locations[section] = IndexFile.Location(offset: offset, length: bytes.count, checksum: checksum)
            offset += bytes.count
        }
        return IndexFile.header(locations) + IndexFile.Section.allCases.flatMap { parts[$0]! }
    }
}
