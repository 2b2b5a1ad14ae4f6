import Foundation
import Testing
@testable import EfferentSystem

/// Whole-file replacement: every byte written through interruptions and short writes, a failed
/// flush or close leaves the old file, and the directory is flushed after the rename.
@Suite struct DurableFileTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "efferent-durable-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    var path: String { directory + "/key.json" }

    func contents() -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }
    var partialLeft: Bool { FileManager.default.fileExists(atPath: path + ".partial") }

    /// The system calls, each recorded by name (and by path for open) before it runs.
    final class Journal {
        var calls: [String] = []
    }

    func recorded(_ journal: Journal, _ change: (inout FileCalls) -> Void = { _ in }) -> FileCalls {
        let system = FileCalls.system
        var calls = FileCalls(
            open: { path, flags, mode in
                journal.calls.append(path.hasSuffix(".partial") ? "open file" : "open directory")
                return system.open(path, flags, mode)
            },
            fchmod: { journal.calls.append("fchmod"); return system.fchmod($0, $1) },
            write: { journal.calls.append("write"); return system.write($0, $1) },
            fsync: { journal.calls.append("fsync"); return system.fsync($0) },
            close: { journal.calls.append("close"); return system.close($0) },
            rename: { journal.calls.append("rename"); return system.rename($0, $1) },
            unlink: { journal.calls.append("unlink"); system.unlink($0) })
        change(&calls)
        return calls
    }

    @Test func replacesTheFileOwnerOnly() throws {
        try DurableFile.write(Array("old".utf8), to: path)
        try DurableFile.write(Array("new".utf8), to: path)
        #expect(contents() == "new")
        #expect(!partialLeft)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func theDirectoryIsFlushedAfterTheRename() throws {
        let journal = Journal()
        try DurableFile.write(Array("key".utf8), to: path, mode: 0o600, durable: true, calls: recorded(journal))
        #expect(journal.calls == ["open file", "fchmod", "write", "fsync", "close", "rename", "open directory", "fsync", "close"])
        #expect(contents() == "key")
    }

    @Test func aLightWriteFlushesNothing() throws {
        let journal = Journal()
        try DurableFile.write(Array("day".utf8), to: path, mode: 0o600, durable: false, calls: recorded(journal))
        #expect(journal.calls == ["open file", "fchmod", "write", "close", "rename"])
    }

    @Test func interruptedAndShortWritesStillWriteEveryByte() throws {
        let journal = Journal()
        var interruptions = 0
        let calls = recorded(journal) { calls in
            let system = FileCalls.system
            let open = calls.open, fsync = calls.fsync
            calls.open = { path, flags, mode in
                interruptions += 1
                return interruptions == 1 ? (-1, EINTR) : open(path, flags, mode)
            }
            calls.write = { fd, buffer in
                interruptions += 1
                // Every other call is interrupted; the rest take at most three bytes.
                if interruptions % 2 == 0 { return (-1, EINTR) }
                return system.write(fd, buffer.prefix(3))
            }
            calls.fsync = { fd in
                interruptions += 1
                return interruptions % 2 == 0 ? EINTR : fsync(fd)
            }
        }
        let text = "a reading key of forty-odd bytes, written in threes"
        try DurableFile.write(Array(text.utf8), to: path, mode: 0o600, durable: true, calls: calls)
        #expect(contents() == text)
        #expect(interruptions > 20)
    }

    @Test func aFailedFlushLeavesTheOldFile() throws {
        try DurableFile.write(Array("old".utf8), to: path)
        let calls = recorded(Journal()) { $0.fsync = { _ in EIO } }
        let error = try #require(throws: FileWriteError.self) {
            try DurableFile.write(Array("new".utf8), to: path, mode: 0o600, durable: true, calls: calls)
        }
        #expect(error.description == "Cannot write \(path): Input/output error.")
        #expect(contents() == "old")
        #expect(!partialLeft)
    }

    @Test func aFailedCloseLeavesTheOldFile() throws {
        try DurableFile.write(Array("old".utf8), to: path)
        let calls = recorded(Journal()) { calls in
            let close = calls.close
            calls.close = { fd in _ = close(fd); return EIO }
        }
        #expect(throws: FileWriteError(path: path, reason: "Input/output error")) {
            try DurableFile.write(Array("new".utf8), to: path, mode: 0o600, durable: true, calls: calls)
        }
        #expect(contents() == "old")
        #expect(!partialLeft)
    }

    @Test func anInterruptedCloseIsNotRetried() throws {
        let journal = Journal()
        let calls = recorded(journal) { calls in
            let close = calls.close
            calls.close = { fd in _ = close(fd); return EINTR }
        }
        try DurableFile.write(Array("new".utf8), to: path, mode: 0o600, durable: false, calls: calls)
        #expect(journal.calls.filter { $0 == "close" }.count == 1)
        #expect(contents() == "new")
    }

    @Test func aFailedDirectoryFlushIsReported() throws {
        var flushes = 0
        let calls = recorded(Journal()) { calls in
            let fsync = calls.fsync
            calls.fsync = { fd in
                flushes += 1
                return flushes == 2 ? EIO : fsync(fd)
            }
        }
        #expect(throws: FileWriteError(path: path, reason: "Input/output error while flushing its directory")) {
            try DurableFile.write(Array("new".utf8), to: path, mode: 0o600, durable: true, calls: calls)
        }
        #expect(contents() == "new", "the rename happened; only its flush failed")
    }

    @Test func anUnwritableDirectoryIsASentence() {
        #expect(throws: FileWriteError(path: "/proc/efferent/key.json", reason: "No such file or directory")) {
            try DurableFile.write([1], to: "/proc/efferent/key.json")
        }
    }

    /// A file others can read is made 0600 and named; one whose mode cannot change (here a file
    /// of /proc, which no one may chmod) is an error, not passed over as it once was.
    @Test func restrictingToTheOwnerTightensOrSaysWhyNot() throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(try FileDurability.restrictToOwner([path, path + "-absent"]) == [path])
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        #expect(try FileDurability.restrictToOwner([path]).isEmpty, "already the owner's only")
        #expect(throws: FileDurabilityError.self) { try FileDurability.restrictToOwner(["/proc/self/status"]) }
    }

}
