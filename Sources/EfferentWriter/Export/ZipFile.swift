import Foundation

/// A file read at given offsets, in bounded pieces, with short reads reported as a cut-short archive.
final class ZipFile {
    let label: String
    let size: UInt64
    private let handle: FileHandle

    init(url: URL, label: String) throws(ZipError) {
        self.label = label
        guard let handle = try? FileHandle(forReadingFrom: url), let end = try? handle.seekToEnd() else {
            throw .unreadable(file: label)
        }
        self.handle = handle
        size = end
    }

    deinit { try? handle.close() }

    /// Exactly `count` bytes at `offset`; fewer available means the file ends early.
    func read(at offset: UInt64, count: Int) throws(ZipError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else { throw .cutShort(file: label) }
        do {
            try handle.seek(toOffset: offset)
            guard let data = try handle.read(upToCount: count), data.count == count else { throw ZipError.cutShort(file: label) }
            return [UInt8](data)
        } catch let error as ZipError {
            throw error
        } catch {
            throw .unreadable(file: label)
        }
    }
}
