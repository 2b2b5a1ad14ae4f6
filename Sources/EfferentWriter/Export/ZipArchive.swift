import EfferentCompression
import Foundation

/// A zip archive read from disk without loading it: the central directory (with zip64, for
/// exports over 4 GB) is parsed once, and each entry is opened as a stream of chunks.
///
/// Layout per PKWARE's APPNOTE.TXT 6.3.10: end of central directory §4.3.16, zip64 end record and
/// locator §4.3.14–15, central directory headers §4.3.12, zip64 extra field §4.5.3, Info-ZIP
/// Unicode path extra field §4.6.9.
public final class ZipArchive {
    public let url: URL
    /// Every entry, in central directory order, folders and side files included.
    public let entries: [ZipEntry]
    /// The archive's size in bytes.
    public let fileSize: UInt64

    /// How much is read from disk at a time: memory stays bounded whatever the archive's size.
    public static let chunkSize = 1 << 20

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64EndSignature: UInt32 = 0x0606_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50
    static let localSignature: UInt32 = 0x0403_4B50

    var fileLabel: String { url.lastPathComponent }

    public init(url: URL) throws(ZipError) {
        self.url = url
        let label = url.lastPathComponent
        let file = try ZipFile(url: url, label: label)
        fileSize = file.size
        // The end record is 22 bytes plus a comment of at most 65,535: search that tail backwards.
        let tailLength = Int(min(fileSize, 22 + 65_535))
        let tail = try file.read(at: fileSize - UInt64(tailLength), count: tailLength)
        guard let endIndex = Self.lastIndex(of: Self.endSignature, in: tail, minimumTrailing: 22) else {
            let head = try file.read(at: 0, count: Int(min(fileSize, 4)))
            throw head == [0x50, 0x4B, 0x03, 0x04] ? .cutShort(file: label) : .notAZip(file: label)
        }
        var end = LittleEndianBytes(tail, at: endIndex + 10)
        guard let count16 = end.u16(), let size32 = end.u32(), let offset32 = end.u32() else { throw .corrupt(file: label) }
        var entryCount = UInt64(count16), directorySize = UInt64(size32), directoryOffset = UInt64(offset32)
        let endPosition = fileSize - UInt64(tailLength) + UInt64(endIndex)

        if count16 == 0xFFFF || size32 == 0xFFFF_FFFF || offset32 == 0xFFFF_FFFF, endPosition >= 20 {
            let locator = try file.read(at: endPosition - 20, count: 20)
            var reader = LittleEndianBytes(locator)
            if reader.u32() == Self.zip64LocatorSignature {
                _ = reader.u32()
                guard let recordOffset = reader.u64(), recordOffset < endPosition else { throw .corrupt(file: label) }
                let record = try file.read(at: recordOffset, count: 56)
                var fields = LittleEndianBytes(record)
                guard fields.u32() == Self.zip64EndSignature else { throw .corrupt(file: label) }
                fields.offset = 32
                guard let count = fields.u64(), let size = fields.u64(), let offset = fields.u64() else { throw .corrupt(file: label) }
                entryCount = count
                directorySize = size
                directoryOffset = offset
            }
        }
        guard directoryOffset <= endPosition, directorySize <= endPosition - directoryOffset,
              entryCount <= directorySize / 46 + 1, directorySize <= 1 << 30 else { throw .corrupt(file: label) }
        let directory = try file.read(at: directoryOffset, count: Int(directorySize))
        entries = try Self.parseDirectory(directory, count: entryCount, label: label, fileSize: fileSize)
    }

    /// Opens `entry` as a stream of its uncompressed bytes, checked against its CRC-32 at the end.
    public func open(_ entry: ZipEntry, chunkSize: Int = ZipArchive.chunkSize) throws(ZipError) -> ZipEntryReader {
        let file = try ZipFile(url: url, label: fileLabel)
        return try ZipEntryReader(file: file, entry: entry, chunkSize: chunkSize)
    }

    /// At most the first `count` uncompressed bytes of `entry` (for sniffing content), unchecked.
    public func prefix(of entry: ZipEntry, count: Int) throws(ZipError) -> [UInt8] {
        let reader = try open(entry, chunkSize: max(4096, min(count, ZipArchive.chunkSize)))
        var out = [UInt8]()
        while out.count < count, let chunk = try reader.next(verifying: false) {
            out += chunk.prefix(count - out.count)
        }
        return out
    }

    // MARK: Central directory

    private static func parseDirectory(_ bytes: [UInt8], count: UInt64, label: String, fileSize: UInt64) throws(ZipError) -> [ZipEntry] {
        var reader = LittleEndianBytes(bytes)
        var entries = [ZipEntry]()
        entries.reserveCapacity(Int(min(count, 100_000)))
        for _ in 0..<count {
            guard reader.u32() == centralSignature else { throw .corrupt(file: label) }
            reader.offset += 4 // version made by, version needed
            guard let flags = reader.u16(), let method = reader.u16() else { throw .corrupt(file: label) }
            reader.offset += 4 // time, date
            guard let crc = reader.u32(), let compressed32 = reader.u32(), let uncompressed32 = reader.u32(),
                  let nameLength = reader.u16(), let extraLength = reader.u16(), let commentLength = reader.u16() else {
                throw .corrupt(file: label)
            }
            reader.offset += 8 // disk number, internal attributes, external attributes
            guard let offset32 = reader.u32(), let nameBytes = reader.take(Int(nameLength)),
                  let extra = reader.take(Int(extraLength)), reader.take(Int(commentLength)) != nil else {
                throw .corrupt(file: label)
            }
            var entry = ZipEntry(name: decodeName(nameBytes), method: method, flags: flags, crc32: crc,
                                 compressedSize: UInt64(compressed32), uncompressedSize: UInt64(uncompressed32),
                                 localHeaderOffset: UInt64(offset32))
            try applyExtra(Array(extra), to: &entry, nameBytes: nameBytes, label: label)
            guard entry.localHeaderOffset < fileSize, entry.compressedSize <= fileSize else { throw .corrupt(file: label) }
            entries.append(entry)
        }
        return entries
    }

    /// Zip64 sizes and offset (§4.5.3) and the Info-ZIP Unicode path (§4.6.9).
    private static func applyExtra(_ extra: [UInt8], to entry: inout ZipEntry, nameBytes: ArraySlice<UInt8>, label: String) throws(ZipError) {
        var reader = LittleEndianBytes(extra)
        while reader.remaining >= 4 {
            guard let id = reader.u16(), let length = reader.u16(), let body = reader.take(Int(length)) else { throw .corrupt(file: label) }
            var field = LittleEndianBytes(Array(body))
            switch id {
            case 0x0001:
                if entry.uncompressedSize == 0xFFFF_FFFF { guard let v = field.u64() else { throw .corrupt(file: label) }; entry.uncompressedSize = v }
                if entry.compressedSize == 0xFFFF_FFFF { guard let v = field.u64() else { throw .corrupt(file: label) }; entry.compressedSize = v }
                if entry.localHeaderOffset == 0xFFFF_FFFF { guard let v = field.u64() else { throw .corrupt(file: label) }; entry.localHeaderOffset = v }
            case 0x7075:
                guard field.integer(1) == 1, let nameCRC = field.u32(), nameCRC == CRC32.checksum(Array(nameBytes)),
                      let unicode = field.take(field.remaining), let name = String(validating: unicode, as: UTF8.self) else { continue }
                entry.name = name
            default:
                continue
            }
        }
    }

    /// UTF-8 when valid (macOS writes UTF-8 without setting bit 11); otherwise the ASCII half, others replaced.
    private static func decodeName(_ bytes: ArraySlice<UInt8>) -> String {
        if let name = String(validating: bytes, as: UTF8.self) { return name }
        return String(decoding: bytes.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    private static func lastIndex(of signature: UInt32, in bytes: [UInt8], minimumTrailing: Int) -> Int? {
        guard bytes.count >= minimumTrailing else { return nil }
        var index = bytes.count - minimumTrailing
        while index >= 0 {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x05, bytes[index + 3] == 0x06 {
                var check = LittleEndianBytes(bytes, at: index)
                if check.u32() == signature { return index }
            }
            index -= 1
        }
        return nil
    }
}
