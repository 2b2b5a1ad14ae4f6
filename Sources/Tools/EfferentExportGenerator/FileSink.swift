import Foundation

/// A plain file to write the XML into.
final class FileSink: ExportSink {
    private let handle: FileHandle

    init(url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw ExportGeneratorError.cannotCreate(url.path)
        }
        handle = try FileHandle(forWritingTo: url)
    }

    func write(_ bytes: [UInt8]) throws { try handle.write(contentsOf: bytes) }

    func close() throws { try handle.close() }
}
