import EfferentSystem
import Foundation

/// An output file written a piece at a time, so an export of a decade never sits in memory as
/// text: pieces go to `<path>.partial`, which takes the real name only once it is whole (a failed
/// export leaves no half file under the name asked for). New files are 0600 (`main.swift`). A
/// file let go before `finish` — the export failed between opening it and its last piece (a
/// route of no workout, a refused question) — removes its `.partial`: a failure leaves nothing.
final class StreamedFile {
    let path: String
    private let partial: String
    private let handle: FileHandle
    private var done = false

    init(path: String) throws {
        self.path = path
        partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: nil) else { throw StreamedFileError.cannotCreate(path) }
        guard let handle = FileHandle(forWritingAtPath: partial) else { throw StreamedFileError.cannotCreate(path) }
        self.handle = handle
    }

    deinit {
        guard !done else { return }
        try? handle.close()
        FileDurability.remove(partial)
    }

    func write(_ text: String) throws {
        do { try handle.write(contentsOf: Data(text.utf8)) } catch {
            try? handle.close()
            FileDurability.remove(partial)
            done = true
            throw StreamedFileError.cannotWrite(path)
        }
    }

    /// Flushes, closes and gives the file its name (`FileDurability.replace`: the file, then the
    /// folder's new name, flushed to the disk).
    func finish() throws {
        done = true
        do {
            try handle.close()
            try FileDurability.replace(path, with: partial)
        } catch {
            FileDurability.remove(partial)
            throw StreamedFileError.cannotWrite(path)
        }
    }
}

enum StreamedFileError: Error, CustomStringConvertible {
    case cannotCreate(String)
    case cannotWrite(String)
    var description: String {
        switch self {
        case let .cannotCreate(path): "\(path) cannot be created; check that its folder exists and is writable."
        case let .cannotWrite(path): "\(path) could not be written whole (is the disk full?); nothing was left under that name."
        }
    }
}
