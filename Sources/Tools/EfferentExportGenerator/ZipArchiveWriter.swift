import EfferentCompression
import Foundation

/// A zip archive written by hand (PKWARE APPNOTE 6.3.x), one entry at a time, streaming.
///
/// Each local header reserves 20 bytes of extra field; when the entry is done the writer seeks
/// back and fills in CRC and sizes, and turns the reserved field into a zip64 extra (APPNOTE
/// 4.5.3) when a size passes 4 GB — or into padding (0xA220, APPNOTE 4.6.13) when none does.
/// The central directory and end records get zip64 forms (4.3.14–4.3.15) only when a size, an
/// offset or the entry count needs them.
final class ZipArchiveWriter: ExportSink {
    private struct Entry {
        var name: [UInt8]
        var offset: UInt64
        var method: UInt16
        var crc: UInt32 = 0
        var compressed: UInt64 = 0
        var uncompressed: UInt64 = 0
    }

    private let handle: FileHandle
    private let compression: ExportOptions.Compression
    private let forceZip64: Bool
    private var entries = [Entry]()
    private var position: UInt64 = 0
    private var current: Entry?
    private var crc = CRC32()
    private var deflater: DeflateStream?
    /// 2025-06-15 09:30 in MS-DOS form (time, date).
    private let dosTime: UInt16 = (9 << 11) | (30 << 5)
    private let dosDate: UInt16 = ((2025 - 1980) << 9) | (6 << 5) | 15

    private static let limit32: UInt64 = 0xFFFF_FFFF

    init(url: URL, compression: ExportOptions.Compression, forceZip64: Bool) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw ExportGeneratorError.cannotCreate(url.path)
        }
        handle = try FileHandle(forWritingTo: url)
        self.compression = compression
        self.forceZip64 = forceZip64
    }

    deinit { try? handle.close() }

    /// Starts an entry; directories end in `/` and take no bytes.
    func beginEntry(_ name: String, compressed: Bool = true) throws {
        precondition(current == nil, "finish one entry before starting the next")
        var method: UInt16 = 0
        if compressed, !name.hasSuffix("/"), case let .deflate(level) = compression {
            method = 8
            deflater = try DeflateStream(level: level)
        }
        let entry = Entry(name: Array(name.utf8), offset: position, method: method)
        var header = ZipBytes()
        header.u32(0x0403_4B50)
        header.u16(45) // version needed: zip64
        header.u16(0x0800) // UTF-8 names
        header.u16(method)
        header.u16(dosTime)
        header.u16(dosDate)
        header.u32(0) // crc, sizes: patched at the end
        header.u32(0)
        header.u32(0)
        header.u16(UInt16(entry.name.count))
        header.u16(20)
        header.bytes += entry.name
        header.bytes += [UInt8](repeating: 0, count: 20)
        try raw(header.bytes)
        current = entry
        crc = CRC32()
    }

    /// Appends uncompressed bytes to the current entry.
    func write(_ bytes: [UInt8]) throws {
        guard current != nil else { throw ExportGeneratorError.noOpenEntry }
        crc.update(bytes)
        current?.uncompressed += UInt64(bytes.count)
        if let deflater {
            try emit(try deflater.append(bytes))
        } else {
            try emit(bytes)
        }
    }

    func endEntry() throws {
        if let deflater { try emit(try deflater.finish()) }
        deflater = nil
        guard var entry = current else { throw ExportGeneratorError.noOpenEntry }
        entry.crc = crc.value
        current = nil
        let big = forceZip64 || entry.compressed >= Self.limit32 || entry.uncompressed >= Self.limit32
        var patch = ZipBytes()
        patch.u32(entry.crc)
        patch.u32(big ? UInt32.max : UInt32(entry.compressed))
        patch.u32(big ? UInt32.max : UInt32(entry.uncompressed))
        try handle.seek(toOffset: entry.offset + 14)
        try handle.write(contentsOf: patch.bytes)
        var extra = ZipBytes()
        if big {
            extra.u16(0x0001)
            extra.u16(16)
            extra.u64(entry.uncompressed)
            extra.u64(entry.compressed)
        } else {
            extra.u16(0xA220)
            extra.u16(16)
            extra.u16(0xA028)
            extra.u16(0)
            extra.bytes += [UInt8](repeating: 0, count: 12)
        }
        try handle.seek(toOffset: entry.offset + 30 + UInt64(entry.name.count))
        try handle.write(contentsOf: extra.bytes)
        try handle.seek(toOffset: position)
        entries.append(entry)
    }

    /// Writes a whole small entry.
    func addEntry(_ name: String, _ bytes: [UInt8], compressed: Bool = true) throws {
        try beginEntry(name, compressed: compressed)
        if !bytes.isEmpty { try write(bytes) }
        try endEntry()
    }

    /// Writes the central directory and the end records, and closes the file.
    func finish() throws {
        let directoryStart = position
        for entry in entries {
            let sizes = forceZip64 || entry.compressed >= Self.limit32 || entry.uncompressed >= Self.limit32
            let far = forceZip64 || entry.offset >= Self.limit32
            var extra = ZipBytes()
            if sizes || far {
                extra.u16(0x0001)
                extra.u16(UInt16((sizes ? 16 : 0) + (far ? 8 : 0)))
                if sizes {
                    extra.u64(entry.uncompressed)
                    extra.u64(entry.compressed)
                }
                if far { extra.u64(entry.offset) }
            }
            var record = ZipBytes()
            record.u32(0x0201_4B50)
            record.u16(0x031E) // made by: Unix, 3.0
            record.u16(45)
            record.u16(0x0800)
            record.u16(entry.method)
            record.u16(dosTime)
            record.u16(dosDate)
            record.u32(entry.crc)
            record.u32(sizes ? UInt32.max : UInt32(entry.compressed))
            record.u32(sizes ? UInt32.max : UInt32(entry.uncompressed))
            record.u16(UInt16(entry.name.count))
            record.u16(UInt16(extra.bytes.count))
            record.u16(0) // comment
            record.u16(0) // disk
            record.u16(0) // internal attributes
            let directory = entry.name.last == UInt8(ascii: "/")
            record.u32(directory ? (0o040755 << 16) | 0x10 : 0o100644 << 16)
            record.u32(far ? UInt32.max : UInt32(entry.offset))
            record.bytes += entry.name
            record.bytes += extra.bytes
            try raw(record.bytes)
        }
        let directorySize = position - directoryStart
        let needs64 = forceZip64 || entries.count >= 0xFFFF || directoryStart >= Self.limit32 || directorySize >= Self.limit32
        var end = ZipBytes()
        if needs64 {
            let record64 = position
            end.u32(0x0606_4B50)
            end.u64(44)
            end.u16(0x031E)
            end.u16(45)
            end.u32(0)
            end.u32(0)
            end.u64(UInt64(entries.count))
            end.u64(UInt64(entries.count))
            end.u64(directorySize)
            end.u64(directoryStart)
            end.u32(0x0706_4B50)
            end.u32(0)
            end.u64(record64)
            end.u32(1)
        }
        end.u32(0x0605_4B50)
        end.u16(0)
        end.u16(0)
        end.u16(needs64 ? UInt16.max : UInt16(entries.count))
        end.u16(needs64 ? UInt16.max : UInt16(entries.count))
        end.u32(needs64 ? UInt32.max : UInt32(directorySize))
        end.u32(needs64 ? UInt32.max : UInt32(directoryStart))
        end.u16(0)
        try raw(end.bytes)
        try handle.close()
    }

    private func emit(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        current?.compressed += UInt64(bytes.count)
        try raw(bytes)
    }

    private func raw(_ bytes: [UInt8]) throws {
        try handle.write(contentsOf: bytes)
        position += UInt64(bytes.count)
    }
}
