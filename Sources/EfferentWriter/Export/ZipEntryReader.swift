import EfferentCompression

/// The uncompressed bytes of one zip entry, pulled chunk by chunk; the CRC-32 and size recorded in
/// the central directory are checked when the last chunk has been read.
public final class ZipEntryReader {
    public let entry: ZipEntry
    /// Compressed bytes read from the archive so far (what a progress bar over the zip counts).
    public private(set) var compressedBytesRead: UInt64 = 0

    private let file: ZipFile
    private let chunkSize: Int
    private var dataOffset: UInt64 = 0
    private var crc: UInt32 = 0
    private var produced: UInt64 = 0
    private var inflater: InflateStream?
    private var done = false

    init(file: ZipFile, entry: ZipEntry, chunkSize: Int) throws(ZipError) {
        self.file = file
        self.entry = entry
        self.chunkSize = max(1, chunkSize)
        let label = file.label
        guard !entry.isEncrypted else { throw .encrypted(file: label, entry: entry.name) }
        guard entry.method == 0 || entry.method == 8 else { throw .unsupportedMethod(file: label, entry: entry.name, method: entry.method) }
        // The local header (APPNOTE §4.3.7) repeats the name and has its own extra field: skip both.
        var header = LittleEndianBytes(try file.read(at: entry.localHeaderOffset, count: 30))
        guard header.u32() == ZipArchive.localSignature else { throw .corrupt(file: label) }
        header.offset = 26
        guard let nameLength = header.u16(), let extraLength = header.u16() else { throw .corrupt(file: label) }
        dataOffset = entry.localHeaderOffset + 30 + UInt64(nameLength) + UInt64(extraLength)
        guard dataOffset <= file.size, entry.compressedSize <= file.size - dataOffset else { throw .cutShort(file: label) }
        if entry.method == 8 {
            do { inflater = try InflateStream() } catch { throw .corrupt(file: label) }
        }
    }

    /// The next chunk of uncompressed bytes, or nil after the last one (once the checksum has passed).
    public func next() throws(ZipError) -> [UInt8]? { try next(verifying: true) }

    func next(verifying: Bool) throws(ZipError) -> [UInt8]? {
        while !done {
            let chunk: [UInt8]
            if let inflater {
                chunk = try inflateStep(inflater)
            } else {
                let remaining = entry.compressedSize - compressedBytesRead
                if remaining == 0 { try finish(verifying: verifying); return nil }
                chunk = try readCompressed(Int(min(UInt64(chunkSize), remaining)))
            }
            if !chunk.isEmpty {
                crc = CRC32.update(crc, chunk)
                produced += UInt64(chunk.count)
                return chunk
            }
        }
        return nil
    }

    private func inflateStep(_ inflater: InflateStream) throws(ZipError) -> [UInt8] {
        if inflater.isFinished { try finish(verifying: true); return [] }
        if inflater.needsInput {
            let remaining = entry.compressedSize - compressedBytesRead
            guard remaining > 0 else { throw .checksumMismatch(file: file.label, entry: entry.name) }
            inflater.setInput(try readCompressed(Int(min(UInt64(chunkSize), remaining))))
        }
        do {
            return try inflater.nextOutput(maxCount: min(chunkSize, 256 * 1024))
        } catch {
            throw .checksumMismatch(file: file.label, entry: entry.name)
        }
    }

    private func readCompressed(_ count: Int) throws(ZipError) -> [UInt8] {
        let bytes = try file.read(at: dataOffset + compressedBytesRead, count: count)
        compressedBytesRead += UInt64(count)
        return bytes
    }

    private func finish(verifying: Bool) throws(ZipError) {
        done = true
        guard verifying else { return }
        guard crc == entry.crc32, produced == entry.uncompressedSize else {
            throw .checksumMismatch(file: file.label, entry: entry.name)
        }
    }
}
