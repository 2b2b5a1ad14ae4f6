import Foundation

/// A plain file read front to back in bounded chunks.
final class FileChunks {
    private let handle: FileHandle
    private let chunkSize: Int
    let size: UInt64
    let label: String
    private(set) var bytesRead: UInt64 = 0

    init(url: URL, chunkSize: Int = ZipArchive.chunkSize) throws(ZipError) {
        guard let handle = try? FileHandle(forReadingFrom: url), let end = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil else {
            throw .unreadable(file: url.lastPathComponent)
        }
        self.handle = handle
        label = url.lastPathComponent
        self.chunkSize = chunkSize
        size = end
    }

    deinit { try? handle.close() }

    /// The next chunk, or nil at the end of the file.
    func next() throws(ZipError) -> [UInt8]? {
        let read: Data?
        do { read = try handle.read(upToCount: chunkSize) } catch { throw .unreadable(file: label) }
        // Foundation answers nil, or empty data, at the end of the file.
        guard let data = read, !data.isEmpty else { return nil }
        bytesRead += UInt64(data.count)
        return [UInt8](data)
    }

    /// The first `count` bytes of the file at `url` (fewer if it is shorter).
    static func prefix(of url: URL, count: Int) -> [UInt8]? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        do {
            // Foundation answers nil for an empty file.
            return try handle.read(upToCount: count).map { [UInt8]($0) } ?? []
        } catch {
            return nil
        }
    }
}
