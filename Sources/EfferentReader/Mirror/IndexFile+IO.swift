import EfferentCore
import EfferentSystem
import Foundation

/// An index file held open: its sections and digests read by offset, from the file that was
/// opened even after a newer one takes its name (an answer decoding its days while a sync saves
/// reads the bytes its snapshot was made from). Closed when the last snapshot using it goes.
final class IndexFileHandle: Sendable {
    private let handle: Mutex<FileHandle>
    let size: Int

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        guard let end = try? handle.seekToEnd(), end <= UInt64(Int.max) else {
            try? handle.close()
            return nil
        }
        size = Int(end)
        self.handle = Mutex(handle)
    }

    deinit { handle.withLock { try? $0.close() } }

    /// `length` bytes from `offset`; nil when the file does not hold them (it is never asked to
    /// read past the size it had when opened, so a read never allocates more than the file holds).
    func read(_ offset: Int, _ length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else { return nil }
        if length == 0 { return [] }
        return handle.withLock { handle in
            do {
                try handle.seek(toOffset: UInt64(offset))
                var out = [UInt8]()
                out.reserveCapacity(length)
                while out.count < length {
                    guard let data = try handle.read(upToCount: length - out.count), !data.isEmpty else { return nil }
                    out += data
                }
                return out
            } catch {
                return nil
            }
        }
    }

    /// A section's bytes when they match its checksum.
    func section(_ location: IndexFile.Location) -> [UInt8]? {
        guard let bytes = read(location.offset, location.length), Checksum(of: bytes) == location.checksum else { return nil }
        return bytes
    }
}

extension IndexFile {
    /// Writes an index as its days come: each digest goes to `<path>.partial` as it is given
    /// (buffered a megabyte at a time), then the strings, days and tallies, then the header over
    /// the space kept for it, and the file takes its name by a rename. Not flushed: a lost index
    /// is read again from the days. Nothing of a writer that is not finished is left behind.
    final class Writer {
        let path: String
        private let partial: String
        private let handle: FileHandle
        private var buffer = [UInt8]()
        private var written = 0
        private var digests = 0
        private var finished = false

        init(path: String) throws {
            self.path = path
            partial = path + ".partial"
            guard FileManager.default.createFile(atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: partial) else { throw IndexWriteError(path: path) }
            self.handle = handle
            buffer.reserveCapacity(1 << 20)
            try put([UInt8](repeating: 0, count: IndexFile.headerSize))
        }

        deinit {
            guard !finished else { return }
            try? handle.close()
            FileDurability.remove(partial)
        }


        private func put(_ bytes: some Collection<UInt8>) throws {
            buffer += bytes
            written += bytes.count
            if buffer.count >= 1 << 20 { try flush() }
        }

        private func flush() throws {
            guard !buffer.isEmpty else { return }
            do { try handle.write(contentsOf: buffer) } catch { throw IndexWriteError(path: path) }
            buffer.removeAll(keepingCapacity: true)
        }

        /// Appends one day's digest; returns where it lies in the file and its checksum.
        func digest(_ bytes: ArraySlice<UInt8>) throws -> (offset: Int, checksum: Checksum) {
            let offset = written
            try put(bytes)
            digests += bytes.count
            return (offset, Checksum(of: bytes))
        }

        /// Writes the other sections and the header, and closes the file (not yet under its name).
        func finish(strings: IndexStrings, days: [DayLine], tallies: [UInt8]) throws {
            let sections: [(Section, [UInt8])] = [(.strings, IndexFile.strings(strings)), (.days, IndexFile.days(days)), (.tallies, tallies)]
            var locations: [Section: Location] = [:]
            var offset = IndexFile.headerSize + digests
            // The digests section's checksum is that of its days' checksums in order, each of which
            // covers its day's bytes: a digest is checked when it is read, without a pass over all.
            locations[.digests] = Location(offset: IndexFile.headerSize, length: digests, checksum: Checksum(ofEach: days.map(\.digest)))
            for (section, bytes) in sections {
                locations[section] = Location(offset: offset, length: bytes.count, checksum: Checksum(of: bytes))
                try put(bytes)
                offset += bytes.count
            }
            try flush()
            do {
                try handle.seek(toOffset: 0)
                try handle.write(contentsOf: IndexFile.header(locations))
                try handle.close()
            } catch {
                throw IndexWriteError(path: path)
            }
        }

        /// The finished file, before it takes its name (to open it for reading first).
        var finishedPath: String { partial }

        /// Gives the finished file its name, in one step.
        func publish() throws {
            do { try FileDurability.replace(path, with: partial, durable: false) } catch { throw IndexWriteError(path: path) }
            finished = true
        }
    }
}

/// The index could not be written (a full disk, a folder that is not ours): answers stand, and
/// the next command reads the changed days again.
struct IndexWriteError: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path) could not be written" }
}

extension Checksum {
    /// The checksum of a list of checksums, in order: the digests section's own, over its days'.
    init(ofEach list: [Checksum]) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(list.count * Checksum.byteCount)
        for checksum in list { bytes += checksum.bytes }
        self.init(of: bytes)
    }
}
