import EfferentCore
import EfferentSystem
import Foundation

/// `index.bin`, format version 7: a header, then four sections, each covered by its own checksum
/// (BLAKE2b in 16 bytes, `Checksum`), and every day's digest by one of its own.
///
///     header   "EFX7", the number of sections (4, u32), then per section its tag (u32), a zero
///              (u32), its offset and length in the file (u64 each) and its checksum (16 bytes);
///              then the checksum of every header byte before it. Little-endian, 184 bytes.
///     digests  each held day's digest (`DigestCoding.encode`), days ascending, back to back.
///     strings  the names the digests and tallies use by number: a count, then each as its UTF-8
///              with its length first.
///     days     the fingerprint of the days the index was read from, one line per day, ascending:
///              its number, the upload time the mirror recorded for it, the size and modification
///              time of its file, that file's own checksum when the mirror records one, then the
///              length and checksum of its digest and the length of its tally line.
///     tallies  each day's tally line (`DigestCoding.tally`): what the overview adds up.
///
/// Integers inside sections are zigzag LEB128 (`IndexWriter`). The sections follow the header in
/// this order, back to back, and the last ends where the file ends: a section past the end, an
/// overlap, a gap or bytes after the last are a damaged file, as is any checksum that does not
/// match. The digests come first so a file can be written as the days are read, each digest
/// straight to the disk, and the sections that need them all (strings, days, tallies) after.
enum IndexFile {
    static let magic: [UInt8] = Array("EFX7".utf8)
    /// What every index of an earlier format starts with (`EFX2`…`EFX6`): rebuilt, and said.
    static let family: [UInt8] = Array("EFX".utf8)

    enum Section: UInt32, CaseIterable, Sendable {
        case digests = 1, strings = 2, days = 3, tallies = 4

        var name: String {
            switch self {
            case .digests: "digests"
            case .strings: "strings"
            case .days: "days"
            case .tallies: "tallies"
            }
        }
    }

    struct Location: Sendable, Equatable {
        let offset: Int
        let length: Int
        let checksum: Checksum
    }

    static let entrySize = 40
    static let headerSize = 8 + Section.allCases.count * entrySize + Checksum.byteCount

    /// One day's line in the days section.
    struct DayLine: Sendable, Equatable {
        let day: CalendarDay
        let stamp: String
        let file: FileStamp
        /// The checksum of the day's file the digest was read from, when the mirror records one.
        let body: Checksum?
        let digestLength: Int
        let digest: Checksum
        let tallyLength: Int
    }

    // MARK: The header

    static func header(_ locations: [Section: Location]) -> [UInt8] {
        var out = magic
        func u32(_ value: UInt32) { for shift in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(shift)))) } }
        func u64(_ value: UInt64) { for shift in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) } }
        u32(UInt32(Section.allCases.count))
        for section in Section.allCases {
            let location = locations[section]!
            u32(section.rawValue)
            u32(0)
            u64(UInt64(location.offset))
            u64(UInt64(location.length))
            out += location.checksum.bytes
        }
        out += Checksum(of: out).bytes
        return out
    }

    /// The sections' places as the header gives them, held to the file's size; or what is wrong.
    static func locations(_ header: [UInt8], fileSize: Int) -> Result<[Section: Location], IndexDamage> {
        guard header.count >= family.count, header.starts(with: family) else { return .failure(.notAnIndex) }
        guard header.count >= magic.count else { return .failure(.cutShort) }
        guard header.starts(with: magic) else { return .failure(.otherVersion(String(decoding: header.prefix(4), as: UTF8.self))) }
        guard header.count >= headerSize, fileSize >= headerSize else { return .failure(.cutShort) }
        guard Checksum(of: header[..<(headerSize - Checksum.byteCount)]) == Checksum(digest: header[(headerSize - Checksum.byteCount)..<headerSize]) else {
            return .failure(.header)
        }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(header[at + $1]) << (8 * UInt32($1)) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[at + $1]) << (8 * UInt64($1)) } }
        guard u32(4) == UInt32(Section.allCases.count) else { return .failure(.sections) }
        var locations = [Section: Location]()
        var next = headerSize
        for (index, section) in Section.allCases.enumerated() {
            let at = 8 + index * entrySize
            let offset = u64(at + 8), length = u64(at + 16)
            // In order, back to back from the header on: no gap, no overlap, nothing past the end.
            guard u32(at) == section.rawValue, u32(at + 4) == 0, offset == UInt64(next), length <= UInt64(fileSize - next) else {
                return .failure(offset == UInt64(next) && length > UInt64(fileSize - next) ? .cutShort : .sections)
            }
            locations[section] = Location(offset: next, length: Int(length), checksum: Checksum(digest: header[(at + 24)..<(at + 40)])!)
            next += Int(length)
        }
        guard next == fileSize else { return .failure(.sections) }
        return .success(locations)
    }

    // MARK: Sections

    static func strings(_ strings: IndexStrings) -> [UInt8] {
        var out = IndexWriter()
        out.int(strings.list.count)
        for text in strings.list { out.text(text) }
        return out.bytes
    }

    static func strings(from bytes: ArraySlice<UInt8>) -> IndexStrings? {
        var input = IndexReader(bytes: bytes)
        guard let count = input.count() else { return nil }
        var list = [String]()
        list.reserveCapacity(count)
        for _ in 0..<count {
            guard let text = input.text() else { return nil }
            list.append(text)
        }
        guard input.atEnd else { return nil }
        return IndexStrings(list: list)
    }

    static func days(_ lines: [DayLine]) -> [UInt8] {
        var out = IndexWriter()
        out.int(lines.count)
        for line in lines {
            out.int64(line.day.daysSinceEpoch)
            out.text(line.stamp)
            out.int64(line.file.size)
            out.int64(line.file.modified)
            if let body = line.body {
                out.bytes.append(1)
                out.bytes += body.bytes
            } else {
                out.bytes.append(0)
            }
            out.int(line.digestLength)
            out.bytes += line.digest.bytes
            out.int(line.tallyLength)
        }
        return out.bytes
    }

    /// The days section's lines; nil when it does not read, or its days are not ascending, or its
    /// lengths do not add up to the digests and tallies sections they divide (when given).
    static func days(from bytes: ArraySlice<UInt8>, digestsLength: Int?, talliesLength: Int?) -> [DayLine]? {
        let digestsLimit = digestsLength ?? Int.max / 2, talliesLimit = talliesLength ?? Int.max / 2
        var input = IndexReader(bytes: bytes)
        guard let count = input.count(each: 21) else { return nil }
        var lines = [DayLine]()
        lines.reserveCapacity(count)
        var digests = 0, tallies = 0
        for _ in 0..<count {
            guard let day = input.day(), lines.last.map({ $0.day < day }) ?? true, let stamp = input.text(),
                  let size = input.int64(), size >= 0, let modified = input.int64(), let hasBody = input.flag() else { return nil }
            var body: Checksum?
            if hasBody {
                guard let bytes = input.take(Checksum.byteCount) else { return nil }
                body = Checksum(digest: bytes)
            }
            guard let digestLength = input.natural(), digestLength <= digestsLimit - digests, let digestBytes = input.take(Checksum.byteCount),
                  let tallyLength = input.natural(), tallyLength <= talliesLimit - tallies else { return nil }
            digests += digestLength
            tallies += tallyLength
            lines.append(DayLine(day: day, stamp: stamp, file: FileStamp(size: size, modified: modified), body: body,
                                 digestLength: digestLength, digest: Checksum(digest: digestBytes)!, tallyLength: tallyLength))
        }
        guard input.atEnd, digestsLength.map({ $0 == digests }) ?? true, talliesLength.map({ $0 == tallies }) ?? true else { return nil }
        return lines
    }
}

/// What is wrong with an index file, named once when it is rebuilt (a phrase, never a value from the days).
enum IndexDamage: Error, Equatable, Sendable {
    case unreadable
    case notAnIndex
    case otherVersion(String)
    case cutShort
    case header
    case sections
    case section(IndexFile.Section)

    var phrase: String {
        switch self {
        case .unreadable: "could not be read"
        case .notAnIndex: "is not an index"
        case let .otherVersion(magic): "was written in another format (\(magic.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 } ? magic : "?"), this reader writes EFX7)"
        case .cutShort: "is cut short"
        case .header: "does not match its header's checksum"
        case .sections: "has sections that do not lie where its header says"
        case let .section(section): "does not match the checksum of its \(section.name) section"
        }
    }
}
